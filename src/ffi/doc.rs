//! The document handle the C ABI hands out.

use crate::Document;

/// A parsed document plus the message of its last failed read. `doc` is
/// `None` once closed: the document's memory is released at once, while
/// the handle itself stays valid (reads report `CLOSED`) until freed.
pub struct Handle {
    pub(crate) doc: Option<Document<'static>>,
    pub(crate) error: String,
}

pub(crate) const CLOSED: &str = "document is closed";

/// Documents neither closed nor freed, for leak checks and monitoring.
pub(crate) static LIVE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl Handle {
    pub(crate) fn new(doc: Document<'static>) -> Box<Handle> {
        LIVE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Box::new(Handle { doc: Some(doc), error: String::new() })
    }
}

impl Handle {
    /// Releases the document now; the handle stays until freed.
    pub(crate) fn close(&mut self) {
        if self.doc.take().is_some() {
            LIVE.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        self.close();
    }
}
