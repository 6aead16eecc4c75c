//! Stream splitting: the values of a stream are the same however it is cut
//! into chunks, and hostile streams fail with a position in bounded memory.

use qjson_core::stream::{Splitter, StreamFormat};

fn collect(sp: &Splitter, data: &[u8], out: &mut Vec<(Vec<u8>, u64)>) {
    for s in sp.spans() {
        let area = if s.joined == 1 { sp.joined() } else { data };
        out.push((area[s.start as usize..s.start as usize + s.len as usize].to_vec(), s.at));
    }
}

fn whole(format: StreamFormat, data: &[u8]) -> (Vec<(Vec<u8>, u64)>, Option<String>) {
    let mut sp = Splitter::new(format, 1 << 20);
    let r = sp.split_all(data);
    let mut v = Vec::new();
    collect(&sp, data, &mut v);
    (v, r.err().map(|e| e.to_string()))
}

fn chunked(format: StreamFormat, chunks: &[&[u8]]) -> (Vec<(Vec<u8>, u64)>, Option<String>) {
    let mut sp = Splitter::new(format, 1 << 20);
    let mut v = Vec::new();
    for (i, c) in chunks.iter().enumerate() {
        let r = sp.feed(c, i + 1 == chunks.len());
        let buf = sp.buffer().to_vec();
        collect(&sp, &buf, &mut v);
        if let Err(e) = r {
            return (v, Some(e.to_string()));
        }
    }
    (v, None)
}

const STREAMS: &[(StreamFormat, &str)] = &[
    (StreamFormat::Ndjson, "{\"a\":1}\n{\"b\":\"x\\ny\"}\r\n\n  [1,2]  \n3\n\"s\"\n{\"last\":true}"),
    (StreamFormat::Concat, "{\"a\":[1,{\"b\":\"}]\\\"\"}]} [] 12 \"x\\\\\" true{\"c\":null}\n\"q\"-4.5e3 "),
    (
        StreamFormat::Sse,
        ": hello\n\nevent: delta\ndata: {\"id\":1,\"choices\":[{\"delta\":{\"content\":\"He\"}}]}\n\n\
         id: 7\r\ndata:{\"id\":2}\r\n\r\ndata: {\"multi\":\r\ndata: [1,\rdata: 2]}\r\rretry: 10\n\
         data\n\ndata: \n\ndata: {\"id\":3}\n\ndata: [DONE]\n\ndata: {\"after\":1}\n\n",
    ),
    (StreamFormat::Sse, "data: {\"x\":1}\n\ndata: {\"y\":2}"),
];

#[test]
fn every_cut_gives_the_same_values() {
    for (format, text) in STREAMS {
        let data = text.as_bytes();
        let (want, err) = whole(*format, data);
        assert!(err.is_none(), "{format:?}: {err:?}");
        assert!(want.len() >= 2, "{format:?}: {want:?}");
        for k in 0..=data.len() {
            let got = chunked(*format, &[&data[..k], &data[k..]]);
            assert_eq!(got, (want.clone(), None), "{format:?} cut at {k}");
        }
        let bytes: Vec<&[u8]> = data.chunks(1).collect();
        assert_eq!(chunked(*format, &bytes), (want.clone(), None), "{format:?} byte by byte");
    }
}

#[test]
fn sse_reads_as_the_spec_says() {
    let (v, _) = whole(STREAMS[2].0, STREAMS[2].1.as_bytes());
    let texts: Vec<String> = v.iter().map(|(b, _)| String::from_utf8(b.clone()).unwrap()).collect();
    assert_eq!(
        texts,
        [
            "{\"id\":1,\"choices\":[{\"delta\":{\"content\":\"He\"}}]}",
            "{\"id\":2}",
            "{\"multi\":\n[1,\n2]}",
            "{\"id\":3}",
        ]
    );
}

#[test]
fn errors_carry_the_stream_position() {
    let (v, err) = whole(StreamFormat::Concat, b"{\"a\":1} ] {}");
    assert_eq!(v.len(), 1);
    assert_eq!(err.unwrap(), "unexpected ']' between values at byte 8 of the stream");
    let (_, err) = whole(StreamFormat::Concat, b"[1] {\"never\": [1, 2");
    assert_eq!(err.unwrap(), "unterminated value at byte 4 of the stream");
    let (_, err) = chunked(StreamFormat::Concat, &[b"[1] ", b"{\"never", b"\": [1, 2"]);
    assert_eq!(err.unwrap(), "unterminated value at byte 4 of the stream");
}

/// Feeds `total` bytes of `line` repeated in chunks of `chunk` bytes after
/// `head`; returns the error and the most bytes the splitter held.
fn hostile(format: StreamFormat, head: &[u8], fill: u8, total: usize, max: usize) -> (String, usize) {
    let mut sp = Splitter::new(format, max);
    sp.feed(head, false).unwrap();
    let chunk = vec![fill; 64 * 1024];
    let mut fed = 0;
    let mut held = 0;
    while fed < total {
        let r = sp.feed(&chunk, false);
        held = held.max(sp.buffer().len());
        fed += chunk.len();
        if let Err(e) = r {
            // Every later call fails the same way, holding nothing.
            assert_eq!(sp.feed(b"{}\n", true).unwrap_err(), e);
            assert!(sp.buffer().is_empty());
            return (e.to_string(), held);
        }
    }
    panic!("no error after {fed} bytes")
}

#[test]
fn hostile_streams_fail_in_bounded_memory() {
    let max = 1 << 20;
    // A 100 MB data: line, a value that never ends, a huge NDJSON line, a
    // string that never closes, an endless comment.
    let cases: &[(StreamFormat, &[u8], u8, &str)] = &[
        (StreamFormat::Sse, b"data: {\"ok\":1}\n\ndata: \"", b'a', "at byte 16 of the stream"),
        (StreamFormat::Concat, b"{} [", b'[', "at byte 3 of the stream"),
        (StreamFormat::Ndjson, b"{}\n", b' ', "at byte 3 of the stream"),
        (StreamFormat::Concat, b"\"", b'x', "at byte 0 of the stream"),
        (StreamFormat::Sse, b":", b'x', "at byte 0 of the stream"),
    ];
    for (format, head, fill, at) in cases {
        let (err, held) = hostile(*format, head, *fill, 100 << 20, max);
        assert!(
            err.starts_with("value larger than max_size (1048576 bytes)") || err.starts_with("event larger"),
            "{err}"
        );
        assert!(err.ends_with(at), "{format:?}: {err}");
        assert!(held <= max + 64 + 64 * 1024 + head.len(), "{format:?} held {held}");
    }
    // Many data: lines in one event, each short.
    let mut sp = Splitter::new(StreamFormat::Sse, max);
    let line = b"data: 1234567890123456789012345678901234567890\n".repeat(1000);
    let mut err = None;
    for _ in 0..100 {
        if let Err(e) = sp.feed(&line, false) {
            err = Some(e);
            break;
        }
        assert!(sp.buffer().len() <= 2 * max);
    }
    let err = err.unwrap().to_string();
    assert!(err.ends_with("larger than max_size (1048576 bytes) at byte 6 of the stream"), "{err}");
}

#[test]
fn nul_bytes_and_invalid_utf8_are_left_to_the_parser() {
    // The splitter finds the values; parsing each reports the bad byte.
    let (v, err) = whole(StreamFormat::Ndjson, b"{\"a\":\"\xff\"}\n{\"b\":\0}\n");
    assert!(err.is_none());
    assert_eq!(v.len(), 2);
    let e = qjson_core::Document::parse(&v[0].0, &Default::default()).err().unwrap();
    assert_eq!((e.to_string(), v[0].1 + e.offset as u64), ("invalid UTF-8 at line 1, column 7 (byte 6)".into(), 6));
    let e = qjson_core::Document::parse(&v[1].0, &Default::default()).err().unwrap();
    assert_eq!(v[1].1 + e.offset as u64, 15);
}

/// Streams that fail: split errors (a stray `]`, a value cut off at the
/// end) after values, in every format.
const FAILING: &[(StreamFormat, &str)] = &[
    (StreamFormat::Concat, "{\"a\":1} [2] ] {\"b\":3} 4"),
    (StreamFormat::Concat, "1 \"two\" [3, {\"four\": [5"),
    (StreamFormat::Ndjson, "{\"a\":1}\n[2]\n\"never"),
];

#[test]
fn every_cut_gives_the_same_values_and_error() {
    for (format, text) in FAILING {
        let data = text.as_bytes();
        let (want, err) = whole(*format, data);
        assert!(!want.is_empty(), "{format:?}: {want:?}");
        if *format == StreamFormat::Ndjson {
            // (A line format has no split error: its last value is handed
            // out, and fails when it is parsed.)
            assert!(err.is_none());
        } else {
            assert!(err.is_some(), "{format:?}");
        }
        for k in 0..=data.len() {
            assert_eq!(
                chunked(*format, &[&data[..k], &data[k..]]),
                (want.clone(), err.clone()),
                "{format:?} cut at {k}"
            );
        }
        let bytes: Vec<&[u8]> = data.chunks(1).collect();
        assert_eq!(chunked(*format, &bytes), (want.clone(), err.clone()), "{format:?} byte by byte");
    }
}

/// Feeds `chunks`, leaving the values of the calls in `untaken` untaken
/// (`feed_keeping` next): the values every taken call gave, in order.
fn chunked_untaken(format: StreamFormat, chunks: &[&[u8]], untaken: &[usize]) -> (Vec<(Vec<u8>, u64)>, Option<String>) {
    let mut sp = Splitter::new(format, 1 << 20);
    let mut v = Vec::new();
    let mut keep = false;
    for (i, c) in chunks.iter().enumerate() {
        let end = i + 1 == chunks.len();
        let r = if keep { sp.feed_keeping(c, end) } else { sp.feed(c, end) };
        keep = untaken.contains(&i) && !end && r.is_ok();
        if !keep {
            let buf = sp.buffer().to_vec();
            collect(&sp, &buf, &mut v);
        }
        if let Err(e) = r {
            return (v, Some(e.to_string()));
        }
    }
    (v, None)
}

#[test]
fn values_not_taken_come_again_with_the_next_feed() {
    for (format, text) in STREAMS.iter().chain(FAILING) {
        let data = text.as_bytes();
        let want = whole(*format, data);
        for k in 0..=data.len() {
            for m in (k..=data.len()).step_by(7) {
                let chunks = [&data[..k], &data[k..m], &data[m..]];
                for untaken in [&[0][..], &[1], &[0, 1]] {
                    assert_eq!(
                        chunked_untaken(*format, &chunks, untaken),
                        want,
                        "{format:?} cut at {k} and {m}, calls {untaken:?} untaken"
                    );
                }
            }
        }
    }
}

#[test]
fn sse_skips_one_leading_byte_order_mark_wherever_the_stream_is_cut() {
    let text = b"\xEF\xBB\xBFdata: {\"a\":1}\n\ndata: {\"b\":2}\n\n";
    let (want, err) = whole(StreamFormat::Sse, text);
    assert!(err.is_none());
    let values: Vec<&[u8]> = want.iter().map(|(v, _)| &v[..]).collect();
    assert_eq!(values, [&b"{\"a\":1}"[..], b"{\"b\":2}"]);
    assert_eq!(want[0].1, 9, "positions count the mark's bytes");
    for k in 0..=text.len() {
        assert_eq!(chunked(StreamFormat::Sse, &[&text[..k], &text[k..]]), (want.clone(), None), "cut at {k}");
    }
    let bytes: Vec<&[u8]> = text.chunks(1).collect();
    assert_eq!(chunked(StreamFormat::Sse, &bytes), (want.clone(), None));
    // One mark only, and only at the start: a second one makes the first
    // line's field name "\u{FEFF}data", which is not `data`.
    let (v, _) = whole(StreamFormat::Sse, b"\xEF\xBB\xBF\xEF\xBB\xBFdata: 1\n\ndata: 2\n\n");
    assert_eq!(v, [(b"2".to_vec(), 21)]);
    let (v, _) = whole(StreamFormat::Sse, b"data: 1\n\n\xEF\xBB\xBFdata: 2\n\n");
    assert_eq!(v, [(b"1".to_vec(), 6)]);
    // A stream that is a part of the mark, or the mark alone.
    for s in [&b"\xEF"[..], b"\xEF\xBB", b"\xEF\xBB\xBF", b"\xEFdata: 1\n\n"] {
        assert_eq!(whole(StreamFormat::Sse, s), (vec![], None));
        assert_eq!(chunked(StreamFormat::Sse, &s.chunks(1).collect::<Vec<_>>()), (vec![], None));
    }
    // NDJSON keeps it (the parser rejects it with its position).
    let (v, _) = whole(StreamFormat::Ndjson, b"\xEF\xBB\xBF{}\n");
    assert_eq!(v, [(b"\xEF\xBB\xBF{}".to_vec(), 0)]);
}

#[test]
fn splitters_give_back_what_a_large_value_made_them_hold() {
    // A 30 MB SSE body of multi-line events (the joined area) split whole,
    // then trimmed as a pooled splitter is.
    let event = format!("data: {{\"x\":\ndata: \"{}\"}}\n\n", "y".repeat(300));
    let body = event.repeat(30 << 20 >> 9);
    let mut sp = Splitter::new(StreamFormat::Sse, 1 << 20);
    sp.split_all(body.as_bytes()).unwrap();
    assert!(sp.held_bytes() > 20 << 20, "{}", sp.held_bytes());
    sp.trim();
    assert!(sp.held_bytes() <= 4 * qjson_core::stream::KEEP_BYTES, "{}", sp.held_bytes());
    // A feeder after a large value: its buffer is given back by the next
    // feed.
    let mut sp = Splitter::new(StreamFormat::Ndjson, 64 << 20);
    let big = format!("\"{}\"\n", "z".repeat(30 << 20));
    sp.feed(&big.as_bytes()[..1000], false).unwrap();
    sp.feed(&big.as_bytes()[1000..], false).unwrap();
    assert_eq!(sp.spans().len(), 1);
    sp.feed(b"1\n", false).unwrap();
    assert!(sp.held_bytes() <= 4 * qjson_core::stream::KEEP_BYTES, "{}", sp.held_bytes());
}

#[test]
fn max_size_is_at_most_what_a_span_holds() {
    assert_eq!(qjson_core::stream::MAX_SIZE, u32::MAX as usize);
    assert_eq!(Splitter::new(StreamFormat::Concat, usize::MAX).max_size(), u32::MAX as usize);
    assert_eq!(Splitter::new(StreamFormat::Concat, (1 << 32) + 16).max_size(), u32::MAX as usize);
    assert_eq!(Splitter::new(StreamFormat::Concat, 0).max_size(), 1);
}
