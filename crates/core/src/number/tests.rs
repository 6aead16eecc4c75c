use super::digits::*;
use super::lenient::*;
use super::*;

/// The full check `is_plain_atom` stands in for.
fn full_check(s: &[u8]) -> bool {
    match s[0] {
        b't' | b'f' | b'n' => {
            let w: &[u8] = [&b"true"[..], b"false", b"null"].into_iter().find(|w| w[0] == s[0]).unwrap();
            s.starts_with(w) && s.get(w.len()).is_none_or(|&c| is_delimiter(c))
        }
        _ => scan(s).is_ok(),
    }
}

#[test]
fn plain_atoms_are_valid_atoms() {
    // Random tokens over the bytes that matter, padded past the fast
    // path's room: whatever it accepts, the full check accepts.
    let alphabet = b"0123456789-.eE+ ,]}tfrunlsaex\"";
    let mut x = 0x9e37_79b9_u32;
    let mut accepted = 0;
    for _ in 0..300_000 {
        let mut s = Vec::new();
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        let len = 1 + x as usize % 36;
        for _ in 0..len {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            // Digits most of the time, so that long runs occur.
            let c = if !x.is_multiple_of(3) {
                b'0' + (x >> 8) as u8 % 10
            } else {
                alphabet[(x >> 8) as usize % alphabet.len()]
            };
            s.push(c);
        }
        s.extend_from_slice(&[b' '; 40]);
        if is_plain_atom(&s) {
            accepted += 1;
            assert!(full_check(&s), "{:?}", String::from_utf8_lossy(&s));
        }
    }
    assert!(accepted > 1000, "the fast path accepted only {accepted}");
    // And it does take the common forms.
    for ok in ["0,", "-0}", "12345678]", "123456789012345 ", "-65.613616999999977,", "0.5]", "true,", "false}", "null "]
    {
        let mut s = ok.as_bytes().to_vec();
        s.extend_from_slice(&[b' '; 40]);
        assert!(is_plain_atom(&s), "{ok}");
    }
    for slow in ["1e5,", "1234567890123456,", "0.1234567890123456 ", "01,", "1.,", "-,", "truex", "nul,"] {
        let mut s = slow.as_bytes().to_vec();
        s.extend_from_slice(&[b' '; 40]);
        assert!(!is_plain_atom(&s), "{slow}");
    }
}

#[test]
fn strtoll_f64_reads_integers_as_lua_cjson() {
    assert_eq!(strtoll_f64(b"-0").map(f64::to_bits), Some(0f64.to_bits()));
    assert_eq!(strtoll_f64(b"123,"), Some(123.0));
    assert_eq!(strtoll_f64(b"99999999999999999999]"), Some(9223372036854775807i64 as f64));
    assert_eq!(strtoll_f64(b"-99999999999999999999"), Some(-9223372036854775808.0));
    assert_eq!(strtoll_f64(b"-0.0"), None);
    assert_eq!(strtoll_f64(b"1e400"), None);
    assert_eq!(strtoll_f64(b"1E5"), None);
    // (Found by fuzz/fuzz_targets/decode_events.rs: with lua-cjson's
    // invalid numbers, `Infinity` read as 0 and `+1e20`'s digits as 0.)
    assert_eq!(strtoll_f64(b"Infinity"), None);
    assert_eq!(strtoll_f64(b"-Infinity]"), None);
    assert_eq!(strtoll_f64(b"+99999999999999999999"), Some(9223372036854775807i64 as f64));
    assert_eq!(strtoll_f64(b"+12"), Some(12.0));
    // (Found by the same target: `0X1p999999`, infinity to strtod, read
    // as strtoll's 0.)
    assert_eq!(strtoll_f64(b"0X1p999999]"), None);
    assert_eq!(strtoll_f64(b"0x10"), None);
    assert_eq!(strtoll_f64(b"12 "), Some(12.0));
}

#[test]
fn grammar() {
    for ok in ["0", "-0", "1", "-12", "1.5", "1e5", "1E+5", "1e-5", "0.0e0", "123456789012345678901234567890"] {
        assert!(scan(ok.as_bytes()).is_ok(), "{ok}");
    }
    for bad in ["-", "01", "1.", ".1", "1e", "1e+", "+1", "-a", "1.e1", "00", "1x", "0x10", "Infinity"] {
        assert!(scan(bad.as_bytes()).is_err(), "{bad}");
    }
    assert_eq!(scan(b"12,"), Ok((2, true)));
    assert_eq!(scan(b"1.5]"), Ok((3, false)));
}

#[test]
fn eight_digits_at_once() {
    let w = |t: &[u8; 8]| u64::from_le_bytes(*t);
    assert_eq!(leading_digit_count(w(b"01234567")), 8);
    assert_eq!(leading_digit_count(w(b"99999999")), 8);
    // Every byte value after a run of each length: only digits count.
    for n in 0..8 {
        for c in 0..=255u8 {
            let mut t = *b"55555555";
            t[n] = c;
            let expect = if c.is_ascii_digit() { 8 } else { n };
            assert_eq!(leading_digit_count(w(&t)), expect, "{t:?}");
        }
    }
    assert_eq!(leading_digits(w(b"1234567,")), (1_234_567, 7));
    assert_eq!(leading_digits(w(b"371}    ")), (371, 3));
    assert_eq!(leading_digits(w(b"x1234567")), (0, 0));
    assert_eq!(leading_digits(w(b"98765432")), (98_765_432, 8));
    assert_eq!(eight_digits_value(w(b"01234567")), 1_234_567);
    assert_eq!(eight_digits_value(w(b"99999999")), 99_999_999);
    assert_eq!(digits_end(b"123456789012345678x", 0), 18);
    assert_eq!(digits_end(b"12", 0), 2);
    let mut m = 0;
    assert_eq!(read_digits(b"1234567890123,", 0, &mut m), (13, 13));
    assert_eq!(m, 1_234_567_890_123);
}

#[test]
fn lenient_grammar() {
    // What lua-cjson (C's strtod) reads with decode_invalid_numbers on.
    let ok = [
        ("NaN", false),
        ("-nan", false),
        ("nan(12_ab)", false),
        ("Infinity", false),
        ("-INF", false),
        ("+inf", false),
        ("0x10", false),
        ("-0X1f", false),
        ("0x1.8p1", false),
        ("0x.8", false),
        ("+1", true),
        ("01", true),
        ("-01", true),
        ("1.", false),
        ("-.5", false),
        ("1.e5", false),
        ("00", true),
        ("1e400", false),
        ("7", true),
    ];
    for (text, integer) in ok {
        assert_eq!(scan_lenient(text.as_bytes()), Ok((text.len(), integer)), "{text}");
    }
    for bad in ["infinit", "nan(", "0x", "0x1p", "1e", "1E+", "-", "+", ".5", "0x1g", "1_0", "nul", "- 1"] {
        assert!(scan_lenient(bad.as_bytes()).is_err(), "{bad}");
    }
    assert_eq!(scan_lenient(b"nan,"), Ok((3, false)));
}

#[test]
fn lenient_values() {
    let v = |t: &str| to_f64(t.as_bytes());
    assert!(v("NaN").is_nan() && v("-nan").is_nan() && v("nan(1)").is_nan());
    assert_eq!(v("-Infinity"), f64::NEG_INFINITY);
    assert_eq!(v("+inf"), f64::INFINITY);
    assert_eq!(v("0x10"), 16.0);
    assert_eq!(v("-0x10"), -16.0);
    assert_eq!(v("0x1.8p1"), 3.0);
    assert_eq!(v("0x.8"), 0.5);
    assert_eq!(v("0x7fffffffffffffffff"), 2.3611832414348226e21);
    assert_eq!(v("0x1p-1074"), f64::from_bits(1));
    assert_eq!(v("0x1p-1075"), 0.0); // a tie, to even
    assert_eq!(v("0x1.8p-1075"), f64::from_bits(1));
    assert_eq!(v("0x1p1024"), f64::INFINITY);
    assert_eq!(v("0x1.fffffffffffff8p1023"), f64::INFINITY); // rounds up past the largest
    assert_eq!(v("01"), 1.0);
    assert_eq!(v("-.5"), -0.5);
}

/// The one-pass conversion agrees with Rust's parser everywhere,
/// around the fast path's limits especially.
#[test]
fn valid_numbers_convert_exactly() {
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let fixed = [
        "0",
        "-0",
        "9007199254740992",
        "9007199254740993",
        "-9007199254740993",
        "1e22",
        "1e23",
        "123456789e-22",
        "0.1",
        "3.14159",
        "1.7976931348623157e308",
        "5e-324",
        "12345678901234567890",
        "1234567890123456789",
        "0.000001234",
        "1E+2",
        "-65.613616999999977",
        "2.2250738585072014E-308",
        "2.2250738585072011e-308",
        "4503599627370497.5",
        "9007199254740994.9999",
        "4.9406564584124654e-324",
        "2.4703282292062327e-324",
        "1e-400",
        "123e400",
        "0e999999",
        "-0.0e-5",
        "18446744073709551615e-10",
    ];
    for text in fixed {
        let want: f64 = text.parse().unwrap();
        assert_eq!(to_f64_valid(text.as_bytes(), false).to_bits(), want.to_bits(), "{text}");
        assert_eq!(to_f64_valid(text.as_bytes(), true).to_bits(), want.to_bits(), "{text}");
    }
    // Lenient forms take the slow path and get strtod's value.
    for (text, want) in [("0x10,", 16.0), ("01]", 1.0), ("1.}", 1.0), ("-.5 ", -0.5), ("+2", 2.0), ("1e5]", 1e5)] {
        assert_eq!(to_f64_valid(text.as_bytes(), true), want, "{text}");
    }
    assert!(to_f64_valid(b"NaN", true).is_nan());
    for _ in 0..300_000 {
        let r = next();
        let mut text = String::new();
        if r & 1 == 1 {
            text.push('-');
        }
        let int_digits = 1 + (r >> 1) % 20;
        text.push_str(&format!("{}", 1 + next() % 9));
        for _ in 1..int_digits {
            text.push(char::from(b'0' + (next() % 10) as u8));
        }
        if r & 2 == 2 {
            text.push('.');
            for _ in 0..1 + (r >> 8) % 12 {
                text.push(char::from(b'0' + (next() % 10) as u8));
            }
        }
        if r & 4 == 4 {
            // Mostly near 1, some to the ends of the doubles and past.
            let span = if r & 8 == 8 { 700 } else { 80 };
            text.push_str(&format!("e{}", (next() % span) as i64 - span as i64 / 2));
        }
        let want: f64 = text.parse().unwrap();
        // Followed by a delimiter, as in a document.
        let doc = format!("{text},");
        assert_eq!(to_f64_valid(doc.as_bytes(), false).to_bits(), want.to_bits(), "{text}");
    }
}

extern "C" {
    fn strtod(s: *const std::ffi::c_char, end: *mut *mut std::ffi::c_char) -> f64;
}

/// Hexadecimal numbers round exactly as the C library's `strtod`.
#[test]
fn hex_matches_strtod() {
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..50_000 {
        let r = next();
        let digits = 1 + (r % 24) as usize;
        let mut text = String::from("0x");
        for k in 0..digits {
            if k == (r >> 8) as usize % (digits + 1) {
                text.push('.');
            }
            // Mostly zeros and f's, to reach ties and carries often.
            let d = match next() % 4 {
                0 => 0,
                1 => 15,
                _ => next() % 16,
            };
            text.push(char::from_digit(d as u32, 16).unwrap());
        }
        let exp = (next() % 2400) as i64 - 1200;
        text.push_str(&format!("p{exp}"));
        let c = std::ffi::CString::new(text.clone()).unwrap();
        // SAFETY: a NUL-terminated string; the end pointer is not needed.
        let want = unsafe { strtod(c.as_ptr(), std::ptr::null_mut()) };
        assert_eq!(to_f64(text.as_bytes()).to_bits(), want.to_bits(), "{text}");
    }
}

#[test]
fn conversions() {
    assert_eq!(to_i64(b"-9223372036854775808"), Some(i64::MIN));
    assert_eq!(to_i64(b"9223372036854775808"), None);
    assert_eq!(to_u64(b"18446744073709551615"), Some(u64::MAX));
    assert_eq!(to_u64(b"-1"), None);
    assert_eq!(to_u64(b"-0"), Some(0));
    assert_eq!(to_f64(b"0.1"), 0.1);
    assert!(fits_ijson(b"9007199254740992", true));
    assert!(!fits_ijson(b"9007199254740993", true));
    assert!(!fits_ijson(b"1e400", false));
}

#[test]
fn integer_prefix_is_exact_within_int64() {
    use super::integer_prefix;
    assert_eq!(integer_prefix(b"0", false), Some(0));
    assert_eq!(integer_prefix(b"-0,", false), Some(0));
    assert_eq!(integer_prefix(b"9223372036854775807]", false), Some(i64::MAX));
    assert_eq!(integer_prefix(b"-9223372036854775808", false), Some(i64::MIN));
    assert_eq!(integer_prefix(b"9007199254740993", false), Some(9007199254740993));
    // Past the range: none, or strtoll's bound.
    assert_eq!(integer_prefix(b"9223372036854775808", false), None);
    assert_eq!(integer_prefix(b"9223372036854775808", true), Some(i64::MAX));
    assert_eq!(integer_prefix(b"-99999999999999999999999", true), Some(i64::MIN));
    // Not integers.
    for s in [&b"1.0"[..], b"1e5", b"-", b"", b"1E0", b"12x"] {
        assert_eq!(integer_prefix(s, true), None, "{:?}", std::str::from_utf8(s));
    }
}
