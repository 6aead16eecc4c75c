//! The document handle the C ABI hands out.

use crate::Document;

/// A parsed document plus the message of its last failed read.
pub struct Handle {
    pub(crate) doc: Document<'static>,
    pub(crate) error: String,
}

impl Handle {
    pub(crate) fn new(doc: Document<'static>) -> Box<Handle> {
        Box::new(Handle { doc, error: String::new() })
    }
}
