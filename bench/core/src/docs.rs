//! The documents the core benchmark parses, and the three fields read
//! from each. The corpus is read in place (../shared/data/corpus); the
//! chat ladder and the issues list are the bytes bench/workloads.lua
//! generates, read from its cache (bench/data, written by `make
//! bench-core` before the run).

use std::path::{Path, PathBuf};

/// One step of a path: an object key or an array index.
#[derive(Clone, Copy)]
pub enum Seg {
    Key(&'static str),
    Idx(usize),
}

/// Whether a field is read as a string or as a number.
#[derive(Clone, Copy, PartialEq)]
pub enum Read {
    Str,
    Num,
}

pub struct Field {
    pub path: &'static [Seg],
    pub read: Read,
}

pub struct Doc {
    pub name: &'static str,
    pub bytes: Vec<u8>,
    pub fields: &'static [Field],
    /// A rung of the chat ladder (its parse + reads are held to the
    /// memchr floor).
    pub ladder: bool,
}

use Read::{Num, Str};
use Seg::{Idx, Key};

const TWITTER: &[Field] = &[
    Field { path: &[Key("statuses"), Idx(0), Key("user"), Key("screen_name")], read: Str },
    Field { path: &[Key("statuses"), Idx(99), Key("id")], read: Num },
    Field { path: &[Key("search_metadata"), Key("max_id_str")], read: Str },
];
const CITM: &[Field] = &[
    Field { path: &[Key("events"), Key("138586341"), Key("name")], read: Str },
    Field { path: &[Key("performances"), Idx(100), Key("start")], read: Num },
    Field { path: &[Key("venueNames"), Key("PLEYEL_PLEYEL")], read: Str },
];
const CANADA: &[Field] = &[
    Field { path: &[Key("type")], read: Str },
    Field { path: &[Key("features"), Idx(0), Key("properties"), Key("name")], read: Str },
    Field {
        path: &[Key("features"), Idx(0), Key("geometry"), Key("coordinates"), Idx(479), Idx(0), Idx(0)],
        read: Num,
    },
];
const CHAT: &[Field] = &[
    Field { path: &[Key("model")], read: Str },
    Field { path: &[Key("temperature")], read: Num },
    Field { path: &[Key("messages"), Idx(0), Key("content"), Idx(0), Key("text")], read: Str },
];
const ISSUES: &[Field] = &[
    Field { path: &[Idx(0), Key("title")], read: Str },
    Field { path: &[Idx(15), Key("number")], read: Num },
    Field { path: &[Idx(31), Key("user"), Key("login")], read: Str },
];

/// The path in qjson's syntax (`a.b[0].c`).
pub fn qjson_path(path: &[Seg]) -> String {
    let mut s = String::new();
    for seg in path {
        match seg {
            Key(k) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(k);
            }
            Idx(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

/// The repository's root (this package is bench/core).
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// bench/workloads.lua's cache file of a generated workload.
fn cached(name: &str) -> PathBuf {
    root().join("bench/data").join(format!("{name}.v1.json"))
}

/// The documents of a run; a missing one is reported and left out.
pub fn load(quick: bool) -> Vec<Doc> {
    let corpus = root().join("../shared/data/corpus");
    let ladder: &[&str] = if quick {
        &["chat-2k", "chat-100k", "chat-1m", "chat-10m"]
    } else {
        &["chat-2k", "chat-60k", "chat-100k", "chat-200k", "chat-500k", "chat-1m", "chat-2m", "chat-5m", "chat-10m"]
    };
    let mut list: Vec<(&'static str, PathBuf, &'static [Field], bool)> = vec![
        ("twitter", corpus.join("twitter.json"), TWITTER, false),
        ("citm_catalog", corpus.join("citm_catalog.json"), CITM, false),
        ("canada", corpus.join("canada.json"), CANADA, false),
    ];
    for &name in ladder {
        list.push((name, cached(name), CHAT, true));
    }
    list.push(("issues-100k", cached("issues-100k"), ISSUES, false));
    let mut docs = Vec::new();
    for (name, path, fields, ladder) in list {
        match std::fs::read(&path) {
            Ok(bytes) => docs.push(Doc { name, bytes, fields, ladder }),
            Err(e) => eprintln!("*** SKIPPED {name}: {} ({e}); `make bench-core` generates it", show(&path)),
        }
    }
    docs
}

fn show(p: &Path) -> String {
    p.display().to_string()
}
