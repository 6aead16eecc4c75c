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
