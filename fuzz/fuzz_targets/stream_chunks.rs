//! A stream's values are the same however it is cut into chunks: feeding
//! a splitter chunk by chunk (`Splitter::feed`) finds the values, the
//! positions and the error that splitting the whole buffer at once
//! (`Splitter::split_all`) finds, for every format and any bytes. With a
//! small `max_size`, the chunked splitter may stop earlier (it bounds what
//! it holds), but only with the size error and after the same values.
#![no_main]

use libfuzzer_sys::fuzz_target;
use qjson_core::stream::{Splitter, StreamFormat};

/// The values a call found: their bytes and stream positions.
fn collect(sp: &Splitter, data: &[u8], out: &mut Vec<(Vec<u8>, u64)>) {
    for s in sp.spans() {
        let area = if s.joined == 1 { sp.joined() } else { data };
        let (from, len) = (s.start as usize, s.len as usize);
        assert!(from + len <= area.len(), "a span past its area: {s:?}");
        out.push((area[from..from + len].to_vec(), s.at));
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&ctl, rest)) = data.split_first() else { return };
    let Some((&seed, input)) = rest.split_first() else { return };
    let Some(format) = StreamFormat::from_u32(u32::from(ctl % 3)) else { return };
    let max = if ctl & 0x80 != 0 { 1 + (ctl as usize >> 2 & 0x1f) } else { 1 << 20 };

    let mut sp = Splitter::new(format, max);
    let whole_err = sp.split_all(input).err();
    let mut whole = Vec::new();
    collect(&sp, input, &mut whole);

    // Chunk lengths from a xorshift of the seed, 0 to 31 bytes; the last
    // call says the stream ends (with an empty chunk when the cuts fall
    // exactly on the end).
    let mut x = u32::from(seed) | 0x100;
    let mut fed = Splitter::new(format, max);
    let mut got = Vec::new();
    let mut got_err = None;
    let mut at = 0;
    loop {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        let to = (at + (x % 32) as usize).min(input.len());
        let end = to == input.len();
        let r = fed.feed(&input[at..to], end);
        let buf = fed.buffer().to_vec();
        collect(&fed, &buf, &mut got);
        if let Err(e) = r {
            // Every later call fails with the same error.
            assert_eq!(fed.feed(b"{}\n", true).unwrap_err(), e);
            got_err = Some(e);
            break;
        }
        if end {
            break;
        }
        at = to;
    }

    if max >= 1 << 20 {
        assert_eq!(got, whole, "chunked values differ from the whole buffer's");
        assert_eq!(got_err, whole_err, "chunked error differs from the whole buffer's");
    } else {
        assert!(whole.starts_with(&got), "chunked values are not the whole buffer's first ones");
        match (&got_err, &whole_err) {
            (None, None) => assert_eq!(got, whole),
            (Some(g), w) if Some(g) != w.as_ref() => {
                assert!(g.message.contains("max_size"), "chunked error {g:?}, whole {w:?}")
            }
            _ => {}
        }
    }
});
