//! The feeder's contract (docs/api.md, "after a bad value"): a stream fed
//! in random chunks through the C ABI, as the Lua binding drives it, hands
//! out the values, positions and first error that splitting and parsing
//! the whole buffer gives, however it is cut, errors included: a value
//! that does not parse ends the stream with its error, as a split error
//! does. Some feeds leave their values untaken (`unread` left at 1, as
//! when an error cuts the binding's copy short): the next feed gives them
//! again, first, and none is lost or given twice. Feeding after the end
//! fails, without changing what was found.
#![no_main]

use libfuzzer_sys::fuzz_target;
use qjson::stream::{qjson_stream_feed, qjson_stream_new_in, qjson_stream_release, StreamOut};
use qjson::ErrorInfo;
use qjson_core::stream::{Span, Splitter, StreamFormat};
use qjson_core::{Document, Options};

mod common;

/// What a stream gave: its values (bytes and position) up to the first
/// error, and that error (a split error, or a value's parse error).
type Outcome = (Vec<(Vec<u8>, u64)>, Option<String>);

/// Takes values in order until one does not parse: true when the stream
/// may go on.
fn take(values: &mut Outcome, value: &[u8], at: u64, opts: &Options) -> bool {
    match Document::parse(value, opts) {
        Ok(_) => {
            values.0.push((value.to_vec(), at));
            true
        }
        Err(e) => {
            values.1 = Some(format!("{e} in the value at byte {at} of the stream"));
            false
        }
    }
}

fn message(e: &ErrorInfo) -> String {
    let bytes: Vec<u8> = e.message.iter().take_while(|&&c| c != 0).map(|&c| c as u8).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

fuzz_target!(|data: &[u8]| {
    // SAFETY: the C ABI's contracts hold for every call here: pointers are null or
    // point to locals, slices or statics of the right size that outlive the call;
    // handles and slots come from this code's own parse/new calls and are freed once,
    // after their last use; inputs outlive the documents parsed from them.
    unsafe {
        common::printing_panics();
        let Some((&ctl, rest)) = data.split_first() else { return };
        let Some((&seed, input)) = rest.split_first() else { return };
        let Some(format) = StreamFormat::from_u32(u32::from(ctl % 3)) else { return };
        let opts = Options {
            max_depth: if ctl & 0x04 != 0 { 2 } else { Options::default().max_depth },
            duplicate_keys: u32::from(ctl & 0x08 != 0),
            ..Options::default()
        };

        // The whole buffer, as each() reads it.
        let mut whole: Outcome = (Vec::new(), None);
        let mut sp = Splitter::new(format, 1 << 20);
        let r = sp.split_all(input);
        let mut going = true;
        for s in sp.spans() {
            let area = if s.joined == 1 { sp.joined() } else { input };
            let (from, len) = (s.start as usize, s.len as usize);
            if !take(&mut whole, &area[from..from + len], s.at, &opts) {
                going = false;
                break;
            }
        }
        if going {
            whole.1 = r.err().map(|e| e.to_string());
        }

        // Chunks of 0 to 31 bytes from a xorshift of the seed; a feed's values
        // left untaken when its bit 5 is set.
        let mut x = u32::from(seed) | 0x100;
        let mut slot = std::ptr::null_mut();
        let mut err = ErrorInfo { offset: 0, line: 0, column: 0, message: [0; 256] };
        assert_eq!(qjson_stream_new_in(ctl as u32 % 3, 1 << 20, &mut slot, &mut err), 1);
        let mut out = StreamOut {
            spans: std::ptr::null(),
            count: 0,
            done: 0,
            data: std::ptr::null(),
            joined: std::ptr::null(),
            joined_len: 0,
            unread: 0,
            err: ErrorInfo { offset: 0, line: 0, column: 0, message: [0; 256] },
        };
        let mut fed: Outcome = (Vec::new(), None);
        let mut at = 0;
        loop {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let to = (at + (x % 32) as usize).min(input.len());
            let end = to == input.len();
            let chunk = &input[at..to];
            let rc = qjson_stream_feed(&mut slot, chunk.as_ptr().cast(), chunk.len(), i32::from(end), &mut out);
            assert!(rc == 1 || rc == -1, "status {rc}");
            if x & 0x20 != 0 && !end && rc == 1 {
                at = to;
                continue; // untaken: unread stays 1
            }
            // Sound: `count` spans, valid until the next call.
            let spans: &[Span] = std::slice::from_raw_parts(out.spans, out.count as usize);
            let mut going = true;
            for s in spans {
                let area = if s.joined == 1 { out.joined } else { out.data };
                // Sound: each span lies inside its area.
                let value = std::slice::from_raw_parts(area.add(s.start as usize).cast::<u8>(), s.len as usize);
                if !take(&mut fed, value, s.at, &opts) {
                    going = false;
                    break;
                }
            }
            out.unread = 0;
            if !going {
                break;
            }
            if rc != 1 {
                fed.1 = Some(message(&out.err));
                break;
            }
            if end {
                // After the end: refused, and nothing found changes.
                let more = b"{}\n\n";
                assert_eq!(qjson_stream_feed(&mut slot, more.as_ptr().cast(), more.len(), 0, &mut out), -1);
                assert_eq!(out.count, 0);
                assert!(message(&out.err).starts_with("feed after the end of the stream"), "{}", message(&out.err));
                break;
            }
            at = to;
        }
        qjson_stream_release(&mut slot);
        assert_eq!(fed, whole, "a fed stream gave other values or another error than the whole buffer");
    }
});
