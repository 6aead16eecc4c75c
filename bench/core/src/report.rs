//! What the core benchmark prints and writes: versions and settings, the
//! ratios its targets are about, and (with `--write`) a section of
//! docs/benchmarks.md between markers, with a gnuplot plot.

use crate::libs::Task;
use crate::Timing;
use std::fmt::Write as _;
use std::time::Duration;

pub struct Meta {
    pub lines: Vec<String>,
    pub date: String,
}

fn lock_version(lock: &str, name: &str) -> String {
    let needle = format!("name = \"{name}\"\nversion = \"");
    lock.find(&needle)
        .map(|i| {
            let rest = &lock[i + needle.len()..];
            rest[..rest.find('"').unwrap_or(0)].to_string()
        })
        .unwrap_or_else(|| "?".into())
}

fn sh(cmd: &str) -> String {
    std::process::Command::new("sh")
        .args(["-c", cmd])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}

impl Meta {
    pub fn collect(rounds: usize, batch: Duration) -> Meta {
        let lock = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.lock")).unwrap_or_default();
        let yy = std::str::from_utf8(yyjson_sys::YYJSON_VERSION_STRING).unwrap_or("?").trim_end_matches('\0');
        let cpu = sh("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2");
        let load = sh("cut -d' ' -f1-3 /proc/loadavg");
        let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
        let native = cfg!(target_feature = "avx2");
        let lines = vec![
            format!("Machine: {cpu}, {cores} cores, load average {load} at the start (shared with other jobs)"),
            format!(
                "Built with {} (`-C target-cpu=native` for every Rust crate, `CFLAGS=-O3 -march=native` for yyjson); \
                 the library itself is built without it and picks its stage 1 at run time",
                if native { "host-CPU code" } else { "generic code (RUSTFLAGS not set: sonic-rs falls back to SSE2)" }
            ),
            format!(
                "qjson {} (Document::parse: strict = Options::default(), lazy = Options::lazy()); \
                 yyjson {yy} (yyjson-sys {}, yyjson_read_opts, flags 0, pool allocator sized by yyjson_read_max_memory_usage); \
                 sonic-rs {} (from_slice to Value / LazyValue, get_from_slice per field, get_many); \
                 simd-json {} (to_tape_with_buffers on a copy made before the batch, buffers reused); \
                 serde_json {} (from_slice to Value); memchr: glibc's",
                env!("CARGO_PKG_VERSION"),
                lock_version(&lock, "yyjson-sys"),
                lock_version(&lock, "sonic-rs"),
                lock_version(&lock, "simd-json"),
                lock_version(&lock, "serde_json"),
            ),
            format!(
                "{rounds} rounds, rows interleaved within each round; a round times a batch of about {} ms per row; \
                 GB/s = bytes / best per-operation time (thread CPU time, so that time spent descheduled on the shared machine is not counted; 10^9 bytes)",
                batch.as_millis()
            ),
        ];
        Meta { lines, date: sh("date -u +%Y-%m-%d") }
    }

    pub fn print(&self) {
        for l in &self.lines {
            println!("{l}");
        }
        println!();
    }
}

/// A target of issue 24: `num` over `den` on one document, at least `want`.
pub struct Ratio {
    pub what: &'static str,
    pub doc: &'static str,
    pub value: f64,
    pub want: f64,
}

fn find<'t>(t: &'t [Timing], doc: &str, lib: &str, task: Task) -> Option<&'t Timing> {
    t.iter().find(|x| x.doc == doc && x.lib == lib && x.task == task)
}

pub fn ratios(t: &[Timing]) -> Vec<Ratio> {
    let mut docs: Vec<(&'static str, bool)> = Vec::new();
    for x in t {
        if !docs.iter().any(|d| d.0 == x.doc) {
            docs.push((x.doc, x.ladder));
        }
    }
    type Spec = (&'static str, (&'static str, Task), (&'static str, Task), f64);
    let specs: [Spec; 5] = [
        ("qjson strict / yyjson full read", ("qjson strict", Task::Full), ("yyjson", Task::Full), 1.0),
        ("qjson lazy / yyjson full read", ("qjson lazy", Task::Structure), ("yyjson", Task::Full), 1.5),
        (
            "qjson strict + 3 reads / sonic-rs get_from_slice",
            ("qjson strict", Task::Reads),
            ("sonic-rs get_from_slice", Task::Reads),
            2.0,
        ),
        (
            "qjson lazy + 3 reads / sonic-rs get_from_slice",
            ("qjson lazy", Task::Reads),
            ("sonic-rs get_from_slice", Task::Reads),
            2.0,
        ),
        ("qjson strict + 3 reads / memchr floor", ("qjson strict", Task::Reads), ("memchr", Task::Floor), 0.5),
    ];
    let mut out = Vec::new();
    for (what, num, den, want) in specs {
        for &(doc, ladder) in &docs {
            let big = find(t, doc, "memchr", Task::Floor).is_some_and(|m| m.bytes >= 100_000);
            let applies = match den.0 {
                // The three documents.
                "yyjson" => matches!(doc, "twitter" | "citm_catalog" | "canada"),
                // Not the ladder: its fields all come before the image
                // payload, which get_from_slice then never reads.
                "sonic-rs get_from_slice" => !ladder,
                // The ladder from 100 KB.
                _ => ladder && big,
            };
            if !applies {
                continue;
            }
            if let (Some(n), Some(d)) = (find(t, doc, num.0, num.1), find(t, doc, den.0, den.1)) {
                out.push(Ratio { what, doc, value: d.best / n.best, want });
            }
        }
    }
    out
}

pub fn print_ratios(r: &[Ratio]) {
    println!("\nRatios (best over best, same run):");
    for x in r {
        let mark = if x.value >= x.want { "met" } else { "NOT MET" };
        println!("  {:<50} {:<13} {:>6.2}x  (>= {:.1}x: {mark})", x.what, x.doc, x.value, x.want);
    }
}

const BEGIN: &str = "<!-- core-bench:begin (written by `make bench-core`) -->";
const END: &str = "<!-- core-bench:end -->";

/// The columns of the GB/s table, in order.
const COLUMNS: [(&str, Task, &str); 15] = [
    ("qjson strict", Task::Full, "qjson strict"),
    ("yyjson", Task::Full, "yyjson DOM"),
    ("sonic-rs Value", Task::Full, "sonic-rs Value"),
    ("simd-json tape", Task::Full, "simd-json tape"),
    ("serde_json Value", Task::Full, "serde_json Value"),
    ("qjson lazy", Task::Structure, "qjson lazy"),
    ("sonic-rs LazyValue", Task::Structure, "sonic-rs LazyValue"),
    ("qjson strict", Task::Reads, "qjson strict + 3"),
    ("qjson lazy", Task::Reads, "qjson lazy + 3"),
    ("sonic-rs get_from_slice", Task::Reads, "sonic-rs get ×3"),
    ("sonic-rs get_many", Task::Reads, "sonic-rs get_many"),
    ("yyjson", Task::Reads, "yyjson + 3"),
    ("qjson stage 1 strict", Task::Stage1, "qjson stage 1 strict"),
    ("qjson stage 1 lazy", Task::Stage1, "qjson stage 1 lazy"),
    ("memchr", Task::Floor, "memchr floor"),
];

fn markdown(meta: &Meta, t: &[Timing], r: &[Ratio], quick: bool) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{BEGIN}\n## Rust core against other parsers\n");
    let _ = writeln!(
        s,
        "`cargo bench --bench core` ({}, {}): the core's parse in GB/s beside the fastest parsers, \
         in one run on one machine. Full parse: a validating parse into each library's own form \
         (qjson: the checked tape; the others: a DOM or tape with every number converted). \
         Structure only: qjson's lazy mode (numbers and literals checked when read) and sonic-rs \
         skipping the document. Three reads: two strings and a number per document (benches/core/docs.rs).\n",
        if quick { "quick form, run by `make bench`" } else { "`make bench-core`" },
        meta.date
    );
    for l in &meta.lines {
        let _ = writeln!(s, "- {l}");
    }
    let _ = writeln!(s, "\n![GB/s, full and structure-only parse](bench-core.png)\n");
    let _ = write!(s, "| document | bytes |");
    for c in COLUMNS {
        let _ = write!(s, " {} |", c.2);
    }
    let _ = write!(s, "\n|---|---:|");
    for _ in COLUMNS {
        let _ = write!(s, "---:|");
    }
    let _ = writeln!(s);
    let mut docs: Vec<(&str, usize)> = Vec::new();
    for x in t {
        if !docs.iter().any(|d| d.0 == x.doc) {
            docs.push((x.doc, x.bytes));
        }
    }
    for (doc, bytes) in &docs {
        let _ = write!(s, "| {doc} | {bytes} |");
        for (lib, task, _) in COLUMNS {
            match find(t, doc, lib, task) {
                Some(x) => {
                    let _ = write!(s, " {:.2} |", x.gbps() / 1e9);
                }
                None => {
                    let _ = write!(s, " – |");
                }
            }
        }
        let _ = writeln!(s);
    }
    let _ = writeln!(s, "\nTargets (issue 24), ratios of best times in this run:\n");
    let _ = writeln!(s, "| ratio | document | value | target | |\n|---|---|---:|---:|---|");
    for x in r {
        let _ = writeln!(
            s,
            "| {} | {} | {:.2}× | ≥ {:.1}× | {} |",
            x.what,
            x.doc,
            x.value,
            x.want,
            if x.value >= x.want { "met" } else { "**not met**" }
        );
    }
    let _ = writeln!(
        s,
        "\nWhere the time of a qjson parse goes, and what bounds the targets missed: \
         [design.md, stage 2](design.md#where-the-time-goes-cargo-bench---bench-core)."
    );
    let _ = writeln!(s, "\n{END}");
    s
}

const PLOTTED: [(&str, Task, &str); 7] = [
    ("qjson strict", Task::Full, "qjson strict"),
    ("qjson lazy", Task::Structure, "qjson lazy"),
    ("sonic-rs LazyValue", Task::Structure, "sonic-rs LazyValue"),
    ("yyjson", Task::Full, "yyjson DOM"),
    ("sonic-rs Value", Task::Full, "sonic-rs Value"),
    ("simd-json tape", Task::Full, "simd-json tape"),
    ("serde_json Value", Task::Full, "serde_json Value"),
];

/// The documents of the plot: the chat ladder's larger rungs (all but
/// the image payload skipped) would dwarf them; the table has those.
fn plot(t: &[Timing], root: &str) -> bool {
    let tmp = format!("{root}/bench/results/tmp");
    let _ = std::fs::create_dir_all(&tmp);
    let docs = ["twitter", "citm_catalog", "canada", "issues-100k", "chat-2k"];
    let mut dat = String::from("doc");
    for p in PLOTTED {
        let _ = write!(dat, "\t\"{}\"", p.2);
    }
    dat.push('\n');
    for doc in docs {
        if !t.iter().any(|x| x.doc == doc) {
            continue;
        }
        let _ = write!(dat, "{doc}");
        for (lib, task, _) in PLOTTED {
            let v = find(t, doc, lib, task).map_or(0.0, |x| x.gbps() / 1e9);
            let _ = write!(dat, "\t{v:.3}");
        }
        dat.push('\n');
    }
    let dat_path = format!("{tmp}/core.dat");
    let gp_path = format!("{tmp}/core.gp");
    let script = format!(
        "set terminal pngcairo size 1100,520 noenhanced font 'sans,10'\nset output '{root}/docs/bench-core.png'\n\
         set title 'Rust core: GB/s (best of the run, higher is better)'\nset style data histograms\n\
         set style histogram clustered gap 1\nset style fill solid 0.85 border -1\nset boxwidth 0.9\n\
         set ylabel 'GB/s'\nset yrange [0:*]\nset grid ytics\nset key outside right top vertical\n\
         set datafile separator '\\t'\nplot for [i=2:{}] '{dat_path}' using i:xtic(1) title columnheader(i)\n",
        PLOTTED.len() + 1
    );
    std::fs::write(&dat_path, dat).is_ok()
        && std::fs::write(&gp_path, script).is_ok()
        && std::process::Command::new("gnuplot").arg(&gp_path).status().is_ok_and(|s| s.success())
}

/// Writes the section into docs/benchmarks.md (replacing the last one, or
/// before "## Method" the first time) and the plot.
pub fn write(meta: &Meta, t: &[Timing], r: &[Ratio], quick: bool) {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let path = format!("{root}/docs/benchmarks.md");
    let old = std::fs::read_to_string(&path).unwrap_or_default();
    let section = markdown(meta, t, r, quick);
    let new = match (old.find(BEGIN), old.find(END)) {
        (Some(a), Some(b)) if b > a => format!("{}{}{}", &old[..a], section.trim_end(), &old[b + END.len()..]),
        _ => match old.find("\n## Method") {
            Some(m) => format!("{}\n{}\n{}", &old[..m], section, &old[m + 1..]),
            None => format!("{old}\n{section}"),
        },
    };
    std::fs::write(&path, new).expect("write docs/benchmarks.md");
    let plotted = plot(t, root);
    println!("\nwrote {path}{}", if plotted { " and docs/bench-core.png" } else { " (no plot: gnuplot failed)" });
}
