//! The Rust core against the fastest parsers, in GB/s, in one run on one
//! machine: `cargo bench --bench core [-- --quick] [--only=doc,doc]
//! [--write] [--rows="qjson strict, full"] [--rounds=N]`. `make
//! bench-core` (and `make bench`, in its quick form) builds it for the
//! host CPU and writes the results into docs/benchmarks.md with a plot
//! (`--write`); `--rows` and `--rounds` are for profiling one row.
//!
//! Every row of a document runs once per round, rows interleaved, so that
//! load from other processes falls on all of them alike; a row's time is
//! the best and the median over the rounds of its per-operation time, in
//! thread CPU time (see `cpu_time`).

mod docs;
mod libs;
mod report;

use libs::{Row, Task};
use std::hint::black_box;
use std::time::Duration;

pub struct Timing {
    pub doc: &'static str,
    pub bytes: usize,
    pub ladder: bool,
    pub lib: &'static str,
    pub task: Task,
    pub best: f64,
    pub median: f64,
}

impl Timing {
    pub fn gbps(&self) -> f64 {
        self.bytes as f64 / self.best
    }
}

struct Args {
    quick: bool,
    write: bool,
    only: Option<Vec<String>>,
    /// Only the rows whose "library, task" holds this (for profiling).
    rows: Option<String>,
    rounds: Option<usize>,
}

fn args() -> Args {
    let mut a = Args { quick: false, write: false, only: None, rows: None, rounds: None };
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--quick" => a.quick = true,
            "--write" => a.write = true,
            "--bench" => {}
            s if s.starts_with("--only=") => a.only = Some(s[7..].split(',').map(String::from).collect()),
            s if s.starts_with("--rows=") => a.rows = Some(s[7..].to_string()),
            s if s.starts_with("--rounds=") => a.rounds = s[9..].parse().ok(),
            s => eprintln!("core bench: ignoring argument {s}"),
        }
    }
    a
}

#[repr(C)]
struct Timespec {
    sec: i64,
    nsec: i64,
}

extern "C" {
    fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
}

/// This thread's CPU time in seconds (Linux's CLOCK_THREAD_CPUTIME_ID):
/// on a machine shared with other jobs, the time this thread is not
/// running is left out, which wall-clock time would count.
fn cpu_time() -> f64 {
    const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
    let mut ts = Timespec { sec: 0, nsec: 0 };
    // SAFETY: writes one timespec.
    assert_eq!(unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts) }, 0);
    ts.sec as f64 + ts.nsec as f64 * 1e-9
}

/// Seconds per operation over one batch of `k` (thread CPU time).
fn sample(row: &mut dyn Row, k: usize) -> f64 {
    row.prepare(k);
    let t = cpu_time();
    let mut sum = 0u64;
    for i in 0..k {
        sum = sum.wrapping_add(row.run(i));
    }
    let dt = cpu_time() - t;
    black_box(sum);
    dt.max(1e-9) / k as f64
}

fn main() {
    let args = args();
    let (rounds, batch_time) = if args.quick { (7, Duration::from_millis(2)) } else { (15, Duration::from_millis(5)) };
    let rounds = args.rounds.unwrap_or(rounds);
    let mut docs = docs::load(args.quick);
    if let Some(only) = &args.only {
        docs.retain(|d| only.iter().any(|o| o == d.name));
    }
    let meta = report::Meta::collect(rounds, batch_time);
    meta.print();
    let mut timings = Vec::new();
    for doc in &docs {
        let mut rows = libs::rows(doc);
        if let Some(want) = &args.rows {
            rows.retain(|r| format!("{}, {}", r.lib(), r.task().title()).contains(want.as_str()));
        }
        // Warm up, and size each row's batch to about `batch_time`.
        let ks: Vec<usize> = rows
            .iter_mut()
            .map(|r| {
                let once = sample(r.as_mut(), 1).min(sample(r.as_mut(), 1));
                ((batch_time.as_secs_f64() / once) as usize).clamp(1, 100_000)
            })
            .collect();
        let mut times = vec![Vec::with_capacity(rounds); rows.len()];
        for _ in 0..rounds {
            for ((r, &k), t) in rows.iter_mut().zip(&ks).zip(&mut times) {
                t.push(sample(r.as_mut(), k));
            }
        }
        let mut index = Vec::new();
        qjson_core::stage1::scan(&doc.bytes, true, false, &mut index);
        println!("{} ({} bytes, {} structural positions)", doc.name, doc.bytes.len(), index.len());
        for (r, mut t) in rows.iter().zip(times) {
            t.sort_by(f64::total_cmp);
            let timing = Timing {
                doc: doc.name,
                bytes: doc.bytes.len(),
                ladder: doc.ladder,
                lib: r.lib(),
                task: r.task(),
                best: t[0],
                median: t[t.len() / 2],
            };
            println!(
                "  {:<27} {:<26} {:>7.2} GB/s best {:>7.2} median",
                timing.task.title(),
                timing.lib,
                timing.gbps() / 1e9,
                timing.bytes as f64 / timing.median / 1e9
            );
            timings.push(timing);
        }
    }
    let ratios = report::ratios(&timings);
    report::print_ratios(&ratios);
    if args.write {
        report::write(&meta, &timings, &ratios, args.quick);
    }
}
