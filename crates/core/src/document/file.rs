//! Reading a document's bytes from a file, bounded: only regular files,
//! their size checked before any byte is read, and never more than the
//! limit read even when the file grows meanwhile.

use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// Largest input a document can hold (its offsets are 32-bit): the default
/// and the highest `max_size`.
pub const MAX_FILE_SIZE: u64 = u32::MAX as u64;

/// The bytes of the regular file at `path`, at most `max_size` of them
/// (values above [`MAX_FILE_SIZE`] mean that); an error for anything else.
pub fn read_file(path: &Path, max_size: u64) -> io::Result<Vec<u8>> {
    let max = max_size.min(MAX_FILE_SIZE);
    // Non-blocking, so that opening a FIFO without a writer returns at
    // once (it is refused below); no effect on a regular file's reads.
    let mut file = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(refused(format!("not a regular file ({})", type_name(&meta.file_type()))));
    }
    if meta.len() > max {
        return Err(too_large(meta.len(), max_size));
    }
    let mut data = Vec::with_capacity(meta.len() as usize);
    // One byte more than allowed tells a file that grew past the limit.
    (&mut file).take(max + 1).read_to_end(&mut data)?;
    if data.len() as u64 > max {
        return Err(refused(format!("file grew past the size limit of {max} bytes while read")));
    }
    Ok(data)
}

fn refused(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, msg)
}

fn too_large(size: u64, max_size: u64) -> io::Error {
    if max_size >= MAX_FILE_SIZE {
        refused(format!("file too large: {size} bytes (the most a document holds is {MAX_FILE_SIZE})"))
    } else {
        refused(format!("file too large: {size} bytes (max_size is {max_size})"))
    }
}

fn type_name(t: &std::fs::FileType) -> &'static str {
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "of another kind"
    }
}
