//! `parse_file`'s reads are bounded (issue 18, item 7): only regular files,
//! sized before reading, never read past `max_size`.

use std::ffi::CString;
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use qjson_core::document::file::{read_file, MAX_FILE_SIZE};

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("qjson-file-limits-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    path
}

fn refusal(path: &Path, max: u64) -> String {
    read_file(path, max).expect_err("refused").to_string()
}

#[test]
fn a_fifo_without_a_writer_is_refused_at_once() {
    let path = temp("fifo");
    let c = CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    assert_eq!(refusal(&path, MAX_FILE_SIZE), "not a regular file (a FIFO)");
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn devices_and_directories_are_refused_unread() {
    assert_eq!(refusal(Path::new("/dev/zero"), MAX_FILE_SIZE), "not a regular file (a character device)");
    assert_eq!(refusal(&std::env::temp_dir(), MAX_FILE_SIZE), "not a regular file (a directory)");
}

#[test]
fn the_size_is_checked_before_reading() {
    // Sparse: 5 GiB by its size, nothing allocated, nothing read.
    let path = temp("sparse");
    let mut f = std::fs::File::create(&path).unwrap();
    f.seek(SeekFrom::Start(5 << 30)).unwrap();
    f.write_all(b"]").unwrap();
    drop(f);
    assert_eq!(refusal(&path, u64::MAX), "file too large: 5368709121 bytes (the most a document holds is 4294967295)");
    std::fs::remove_file(&path).unwrap();

    let path = temp("small");
    std::fs::write(&path, b"[1, 2, 3]").unwrap();
    assert_eq!(read_file(&path, 9).unwrap(), b"[1, 2, 3]");
    assert_eq!(refusal(&path, 8), "file too large: 9 bytes (max_size is 8)");
    assert_eq!(refusal(&path, 0), "file too large: 9 bytes (max_size is 0)");
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn a_file_larger_than_its_size_says_is_read_no_further_than_the_limit() {
    // procfs files report size 0 and then have content: as a file that
    // grows while it is read.
    let status = Path::new("/proc/self/status");
    if !status.exists() {
        return;
    }
    assert!(read_file(status, MAX_FILE_SIZE).unwrap().len() > 10);
    assert_eq!(refusal(status, 10), "file grew past the size limit of 10 bytes while read");
}
