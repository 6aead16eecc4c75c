//! Error kinds and positions: `offset` is the 0-based byte of the offending
//! byte, `line` counts `\n` from 1, `column` counts characters (UTF-8
//! sequences) from 1; `Display` is "<what> at line L, column C (byte B)".
//! When the input holds several errors, the first one in the input is
//! reported, whether stage 1 (string bodies, UTF-8) or stage 2 (grammar)
//! finds it.

mod common;

use common::{assert_error, reject, reject_with};
use qjson_core::{Document, ErrorKind::*, Options};

#[test]
fn grammar_errors() {
    assert_error(b"", Empty, 0, 1, 1);
    assert_error(b" \n\t", Empty, 3, 2, 2);
    assert_error(b"\xEF\xBB\xBF{}", ByteOrderMark, 0, 1, 1);
    assert_error(b"[1,2", UnexpectedEnd, 4, 1, 5);
    assert_error(b"{\"a\"", UnexpectedEnd, 4, 1, 5);
    assert_error(b"{\"a\":", UnexpectedEnd, 5, 1, 6);
    assert_error(b"{\"a\":1,}", ExpectedKey, 7, 1, 8);
    assert_error(b"{1:2}", ExpectedKey, 1, 1, 2);
    assert_error(b"{\"a\" 1}", ExpectedColon, 5, 1, 6);
    assert_error(b"{\"a\":1 \"b\":2}", ExpectedCommaOrObjectEnd, 7, 1, 8);
    assert_error(b"{\"a\":1]", ExpectedCommaOrObjectEnd, 6, 1, 7);
    assert_error(b"[1 2]", ExpectedCommaOrArrayEnd, 3, 1, 4);
    assert_error(b"[1}", ExpectedCommaOrArrayEnd, 2, 1, 3);
    assert_error(b"[1,,2]", ExpectedValue(b','), 3, 1, 4);
    assert_error(b"[1,]", ExpectedValue(b']'), 3, 1, 4);
    assert_error(b"{\"a\":[}", ExpectedValue(b'}'), 6, 1, 7);
    assert_error(b":", ExpectedValue(b':'), 0, 1, 1);
    assert_error(b"[1]x", TrailingContent, 3, 1, 4);
    assert_error(b"\"a\" \"b\"", TrailingContent, 4, 1, 5);
    assert_error(b"{} {}", TrailingContent, 3, 1, 4);
    assert_error(b"[NaN]", UnexpectedChar(b'N'), 1, 1, 2);
    assert_error(b"[\x0c]", UnexpectedChar(0x0C), 1, 1, 2);
    assert_error(b"[\x00]", UnexpectedChar(0), 1, 1, 2);
    assert_error(b"['a']", UnexpectedChar(b'\''), 1, 1, 2);
}

#[test]
fn number_and_literal_errors() {
    assert_error(b"[01]", InvalidNumber, 2, 1, 3);
    assert_error(b"[1.]", InvalidNumber, 3, 1, 4);
    assert_error(b"[.5]", UnexpectedChar(b'.'), 1, 1, 2);
    assert_error(b"[-]", InvalidNumber, 2, 1, 3);
    assert_error(b"[-a]", InvalidNumber, 2, 1, 3);
    assert_error(b"[1e+]", InvalidNumber, 4, 1, 5);
    assert_error(b"[0x1F]", InvalidNumber, 2, 1, 3);
    assert_error(b"[+1]", UnexpectedChar(b'+'), 1, 1, 2);
    assert_error(b"[1.5e3x]", InvalidNumber, 6, 1, 7);
    assert_error(b"[tru]", InvalidLiteral, 1, 1, 2);
    assert_error(b"[nulll]", InvalidLiteral, 1, 1, 2);
    assert_error(b"[falsetrue]", InvalidLiteral, 1, 1, 2);
    assert_error(b"  true x", TrailingContent, 7, 1, 8);
    let ijson = Options { ijson: 1, ..Options::default() };
    let e = reject_with(b"{\"n\": [9007199254740993]}", &ijson);
    assert_eq!((e.kind, e.offset, e.column), (NumberOutOfRange, 7, 8));
    let e = reject_with(b"[1,\n -1e400]", &ijson);
    assert_eq!((e.kind, e.offset, e.line, e.column), (NumberOutOfRange, 5, 2, 2));
}

#[test]
fn string_errors() {
    assert_error(b"[\"a\x01\"]", ControlInString, 3, 1, 4);
    assert_error(b"[\"\x1f\"]", ControlInString, 2, 1, 3);
    assert_error(b"[\"a\nb\"]", ControlInString, 3, 1, 4);
    assert_error(b"[\"\\x\"]", InvalidEscape, 2, 1, 3);
    assert_error(b"[\"\\\x01\"]", InvalidEscape, 2, 1, 3);
    assert_error(b"[\"\\U0041\"]", InvalidEscape, 2, 1, 3);
    assert_error(b"[\"\\u12G4\"]", InvalidUnicodeEscape, 2, 1, 3);
    assert_error(b"[\"\\u12\"]", InvalidUnicodeEscape, 2, 1, 3);
    assert_error(b"[\"\\uD800\"]", LoneSurrogate, 2, 1, 3);
    assert_error(b"[\"\\uDC00\"]", LoneSurrogate, 2, 1, 3);
    assert_error(b"[\"\\uD800\\u0041\"]", LoneSurrogate, 2, 1, 3);
    assert_error(b"[\"ok\\uD83D\\uDE00\\uDE00\"]", LoneSurrogate, 16, 1, 17);
    assert_error(b"[\"ab\xff\"]", InvalidUtf8, 4, 1, 5);
    assert_error(b"[\"abc", UnterminatedString, 1, 1, 2);
    assert_error(b"[\"abc\\\"]", UnterminatedString, 1, 1, 2);
    assert_error(b"{\"a\":1,\"b", UnterminatedString, 7, 1, 8);
    assert_error(b"{\"k\x02\":1}", ControlInString, 3, 1, 4);
}

/// Every class of invalid UTF-8, in a value and in a key: the error points
/// at the first byte of the bad sequence.
#[test]
fn invalid_utf8_classes() {
    let bad: [&[u8]; 12] = [
        b"\x80",             // lone continuation byte
        b"\xbf",             // lone continuation byte
        b"\xc0\x80",         // overlong 2 bytes (NUL)
        b"\xc1\xbf",         // overlong 2 bytes
        b"\xe0\x80\x80",     // overlong 3 bytes
        b"\xf0\x80\x80\x80", // overlong 4 bytes
        b"\xed\xa0\x80",     // U+D800 encoded in UTF-8
        b"\xed\xbf\xbf",     // U+DFFF encoded in UTF-8
        b"\xf4\x90\x80\x80", // above U+10FFFF
        b"\xe2\x82",         // truncated, before the closing quote
        b"\xfe",             // never valid
        b"\xff",             // never valid
    ];
    for seq in bad {
        for prefix in ["", "ok", "é€😀"] {
            let mut value = format!("[\"{prefix}").into_bytes();
            let at = value.len();
            value.extend_from_slice(seq);
            value.extend_from_slice(b"\"]");
            let col = 2 + prefix.chars().count() + 1;
            assert_error(&value, InvalidUtf8, at, 1, col);

            let mut key = format!("{{\n\"{prefix}").into_bytes();
            let at = key.len();
            key.extend_from_slice(seq);
            key.extend_from_slice(b"\": 1}");
            assert_error(&key, InvalidUtf8, at, 2, 1 + prefix.chars().count() + 1);
        }
    }
    // Truncated at the very end of the input: the string is unterminated,
    // which is the earlier error (at its opening quote).
    assert_error(b"[\"ab\xe2\x82", UnterminatedString, 1, 1, 2);
    // Outside strings a non-ASCII byte is first of all not JSON.
    assert_error(b"[\xc3\xa9]", UnexpectedChar(0xC3), 1, 1, 2);
    assert_error(b"[1]\xff", TrailingContent, 3, 1, 4);
}

#[test]
fn multibyte_characters_count_as_one_column() {
    // 2-, 3- and 4-byte characters before the error, on the same line.
    assert_error("[\"é\", 1 2]".as_bytes(), ExpectedCommaOrArrayEnd, 9, 1, 9);
    assert_error("[\"€\", 1 2]".as_bytes(), ExpectedCommaOrArrayEnd, 10, 1, 9);
    assert_error("[\"😀\", 1 2]".as_bytes(), ExpectedCommaOrArrayEnd, 11, 1, 9);
    assert_error("[\"é€😀\", 1 2]".as_bytes(), ExpectedCommaOrArrayEnd, 16, 1, 11);
    // On earlier lines only: they move the offset, not the column.
    assert_error("[\"é€😀\",\n 1 2]".as_bytes(), ExpectedCommaOrArrayEnd, 17, 2, 4);
    // Errors inside strings after multi-byte characters.
    assert_error("[\"é€😀\x01\"]".as_bytes(), ControlInString, 11, 1, 6);
    assert_error("[\"é€😀\\q\"]".as_bytes(), InvalidEscape, 11, 1, 6);
    assert_error("{\"é\": 1,\n \"€😀\": \"\\uDFFF\"}".as_bytes(), LoneSurrogate, 23, 2, 9);
}

/// A generated check of the same rule: `k` characters of any width before
/// the error on its line, and lines of any content before that.
#[test]
fn columns_count_characters_on_the_error_line() {
    let chars = ["a", "é", "€", "😀", "\t", " "];
    for lines in 0..3 {
        for k in 0..40 {
            let mut text = String::from("[");
            for l in 0..lines {
                text.push_str(&format!("\"{}\",\r\n", chars[l % chars.len()].repeat(l + 3)));
            }
            let line_start = if lines == 0 { 0 } else { text.len() };
            let mut s = String::from("\"");
            for i in 0..k {
                s.push_str(chars[(i * 7 + k) % 4]);
            }
            s.push('"');
            text.push_str(&s);
            text.push_str(" 1]");
            let offset = text.len() - 2;
            let column = text[line_start..offset].chars().count() + 1;
            assert_error(text.as_bytes(), ExpectedCommaOrArrayEnd, offset, lines + 1, column);
        }
    }
}

#[test]
fn lines_count_newlines() {
    assert_error(b"[\n1,\n2 3]", ExpectedCommaOrArrayEnd, 7, 3, 3);
    // CRLF: the '\r' ends the previous line's content; columns restart
    // after the '\n'.
    assert_error(b"[\r\n1,\r\n2 3]", ExpectedCommaOrArrayEnd, 9, 3, 3);
    assert_error(b"{\r\n  \"a\": tru\r\n}", InvalidLiteral, 10, 2, 8);
    // A lone '\r' is whitespace, not a line break (as in serde_json).
    assert_error(b"[1,\r2 3]", ExpectedCommaOrArrayEnd, 6, 1, 7);
    // The end of input after a final newline is column 1 of a new line.
    assert_error(b"[1,\n", UnexpectedEnd, 4, 2, 1);
    assert_error(b"{\n\"a\": \"x\n\"}", ControlInString, 9, 2, 8);
}

#[test]
fn too_deep() {
    let mut deep = vec![b'['; 1001];
    deep.resize(2002, b']');
    assert_error(&deep, TooDeep(1000), 1000, 1, 1001);
    deep.truncate(1000);
    deep.resize(2000, b']');
    assert!(Document::parse(&deep, &Options::default()).is_ok(), "1000 levels are allowed");

    let opts = Options { max_depth: 3, ..Options::default() };
    assert!(Document::parse(b"[[[1]]]", &opts).is_ok());
    let e = reject_with(b"{\"a\": [\n  {\"b\": [1]}]}", &opts);
    assert_eq!((e.kind, e.offset, e.line, e.column), (TooDeep(3), 16, 2, 9));
    assert_eq!(e.to_string(), "nesting deeper than max_depth (3) at line 2, column 9 (byte 16)");
    let opts = Options { max_depth: 0, ..Options::default() };
    assert!(Document::parse(b"1", &opts).is_ok(), "scalars need no depth");
    assert_eq!(reject_with(b"[]", &opts).kind, TooDeep(0));
}

/// The first error in the input wins, whichever stage finds it.
#[test]
fn first_error_wins() {
    // Stage 1 (string body) before stage 2 (grammar), and the reverse.
    assert_error(b"[\"\x01\", 01]", ControlInString, 2, 1, 3);
    assert_error(b"[01, \"\x01\"]", InvalidNumber, 2, 1, 3);
    assert_error(b"[\"\\x\", 1 2]", InvalidEscape, 2, 1, 3);
    assert_error(b"[1 2, \"\\x\"]", ExpectedCommaOrArrayEnd, 3, 1, 4);
    assert_error(b"[\"\xff\" }", InvalidUtf8, 2, 1, 3);
    assert_error(b"[} \"\xff\"]", ExpectedValue(b'}'), 1, 1, 2);
    assert_error(b"[tru, \"\x01\"]", InvalidLiteral, 1, 1, 2);
    assert_error(b"[\"\x01\", tru]", ControlInString, 2, 1, 3);
    assert_error(b"[1 2, \"abc", ExpectedCommaOrArrayEnd, 3, 1, 4);
    assert_error(b"[\"\\uD800\", \"abc", LoneSurrogate, 2, 1, 3);
    // Two stage 1 errors: the earlier one.
    assert_error(b"[\"\x01\\x\"]", ControlInString, 2, 1, 3);
    assert_error(b"[\"\\x\x01\"]", InvalidEscape, 2, 1, 3);
    assert_error(b"[\"\xff\x01\"]", InvalidUtf8, 2, 1, 3);
    assert_error(b"[\"\x01\xff\"]", ControlInString, 2, 1, 3);
    assert_error(b"[\"\\uDC00\xff\"]", LoneSurrogate, 2, 1, 3);
    // An I-JSON number error in stage 2 before a string error.
    let ijson = Options { ijson: 1, ..Options::default() };
    let e = reject_with(b"[1e400, \"\x01\"]", &ijson);
    assert_eq!((e.kind, e.offset), (NumberOutOfRange, 1));

    // The same, with the two errors blocks apart (stage 1 works in 64-byte
    // blocks and may skip many at once inside long strings).
    for gap in [10, 63, 64, 65, 127, 128, 129, 300, 5000] {
        let pad = " ".repeat(gap);
        let long = "x".repeat(gap);
        let text = format!("[01,{pad}\"\x01\"]");
        assert_error(text.as_bytes(), InvalidNumber, 2, 1, 3);
        let text = format!("[\"{long}\x01\",{pad}01]");
        assert_error(text.as_bytes(), ControlInString, 2 + gap, 1, 3 + gap);
        let text = format!("[\"{long}\\q{long}\x01\"]");
        assert_error(text.as_bytes(), InvalidEscape, 2 + gap, 1, 3 + gap);
        let text = format!("[\"{long}\x01{long}\\q\"]");
        assert_error(text.as_bytes(), ControlInString, 2 + gap, 1, 3 + gap);
        let mut text = format!("[\"é{long}\x01{long}").into_bytes();
        text.extend_from_slice(b"\xff\"]");
        let e = reject(&text);
        assert_eq!((e.kind, e.offset, e.column), (ControlInString, 4 + gap, 4 + gap));
        let mut text = format!("[\"é{long}").into_bytes();
        let at = text.len();
        text.extend_from_slice(b"\xff\x01\"]");
        assert_error(&text, InvalidUtf8, at, 1, 4 + gap);
        let text = format!("[1 2,\"{long}\x01\"]");
        assert_error(text.as_bytes(), ExpectedCommaOrArrayEnd, 3, 1, 4);
        let text = format!("[\"{long}\",{pad}\"abc");
        assert_error(text.as_bytes(), UnterminatedString, 4 + 2 * gap, 1, 5 + 2 * gap);
    }
}

/// Errors anywhere in a long string (where stage 1 skips quote-free blocks
/// in bulk) are located exactly.
#[test]
fn errors_located_exactly_in_long_strings() {
    for len in [100usize, 1000, 10_000] {
        for lead in [0usize, 1, 63, 64] {
            let step = (len / 97).max(1);
            for at in (0..len).step_by(step) {
                let mut text = vec![b' '; lead];
                text.push(b'"');
                let body = text.len();
                text.resize(body + len, b'A');
                text.push(b'"');
                let p = body + at;
                let mut t = text.clone();
                t[p] = 0x1F;
                assert_error(&t, ControlInString, p, 1, p + 1);
                let mut t = text.clone();
                t[p] = 0xFF;
                assert_error(&t, InvalidUtf8, p, 1, p + 1);
                let mut t = text.clone();
                t.splice(p..p, *b"\\a");
                assert_error(&t, InvalidEscape, p, 1, p + 1);
                let mut t = text.clone();
                t[p] = b'"';
                assert_error(&t, TrailingContent, p + 1, 1, p + 2);
            }
        }
    }
}

#[test]
fn display_format() {
    let cases: [(&[u8], &str); 8] = [
        (b"[1,2", "unexpected end of input at line 1, column 5 (byte 4)"),
        (b"{\"a\": [1, 2,, 3]}", "expected a value, found ',' at line 1, column 13 (byte 12)"),
        (b"[\x00]", "unexpected character byte 0x00 at line 1, column 2 (byte 1)"),
        ("[\n\"é\x01\"]".as_bytes(), "unescaped control character in string at line 2, column 3 (byte 5)"),
        (b"[\"\\uD800\"]", "lone surrogate in \\u escape at line 1, column 3 (byte 2)"),
        (b"", "empty input at line 1, column 1 (byte 0)"),
        (b"\xEF\xBB\xBF[]", "byte-order mark is not allowed at line 1, column 1 (byte 0)"),
        (b"[1] 2", "trailing content after the JSON value at line 1, column 5 (byte 4)"),
    ];
    for (input, want) in cases {
        assert_eq!(reject(input).to_string(), want, "{}", common::show(input));
    }
}
