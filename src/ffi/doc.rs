//! The document handle the C ABI hands out.

use super::Status;
use crate::Document;

/// A parsed document plus the message of its last failed read. `doc` is
/// `None` once closed: the document's memory is released at once, while
/// the handle itself stays valid (reads report `CLOSED`) until freed.
///
/// A handle is either boxed (`qjson_parse*`, freed by `qjson_free`) or
/// placed in memory the caller owns (`qjson_parse_in`), which the caller
/// simply releases: such a handle owns no heap memory at all (its tape and
/// string scratch live in the same block, and the message is inline).
pub struct Handle {
    pub(crate) doc: Option<Document<'static>>,
    pub(crate) error: Message,
    /// Counted in `LIVE` (boxed handles only: the caller frees a placed one
    /// without telling us).
    counted: bool,
}

pub(crate) const CLOSED: &str = "document is closed";

/// Documents neither closed nor freed, for leak checks and monitoring.
pub(crate) static LIVE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl Handle {
    pub(crate) fn boxed(doc: Document<'static>) -> Box<Handle> {
        LIVE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Box::new(Handle { doc: Some(doc), error: Message::default(), counted: true })
    }

    /// A handle for a document placed in caller memory (not counted).
    pub(crate) fn placed(doc: Document<'static>) -> Handle {
        Handle { doc: Some(doc), error: Message::default(), counted: false }
    }

    /// Releases the document now; the handle stays until freed.
    pub(crate) fn close(&mut self) {
        if self.doc.take().is_some() && self.counted {
            LIVE.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        self.close();
    }
}

/// The handle's document and error slot, or the status to return: `Error`
/// for a null handle or a closed document.
pub(crate) fn open_doc<'h>(doc: *mut Handle) -> Result<(&'h mut Document<'static>, &'h mut Message), i32> {
    // SAFETY: `doc` is null or a live handle from `qjson_parse*`.
    let Some(h) = (unsafe { doc.as_mut() }) else { return Err(Status::Error as i32) };
    match &mut h.doc {
        Some(d) => Ok((d, &mut h.error)),
        None => {
            h.error.set(CLOSED);
            Err(Status::Error as i32)
        }
    }
}

/// A message kept inline, truncated (on a character boundary) to what
/// `qjson_error` can carry, so that recording one never allocates.
pub(crate) struct Message {
    len: usize,
    bytes: [u8; 255],
}

impl Default for Message {
    fn default() -> Message {
        Message { len: 0, bytes: [0; 255] }
    }
}

impl Message {
    pub(crate) fn set(&mut self, text: &str) {
        let mut n = text.len().min(self.bytes.len());
        while !text.is_char_boundary(n) {
            n -= 1;
        }
        self.bytes[..n].copy_from_slice(&text.as_bytes()[..n]);
        self.len = n;
    }

    pub(crate) fn as_str(&self) -> &str {
        // Always cut on a character boundary of a `&str` (see `set`).
        std::str::from_utf8(&self.bytes[..self.len]).unwrap_or("")
    }
}
