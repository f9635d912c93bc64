//! Hand-written line and number parsing for the text formats (TU files, Planetoid's
//! `test.index`). Fast (no regexes, no per-line allocation) and strict: every problem is
//! reported with the file, the 1-based line number and what was expected.
//!
//! Accepted quirks: a UTF-8 byte-order mark, CRLF line endings, fields padded with spaces
//! or tabs, `a,b` as well as `a, b`, and blank lines at the very end of a file.
use crate::error::{Error, Result};
use std::path::Path;

/// One line of a text file: its 1-based number and its content without the line ending.
#[derive(Clone, Copy, Debug)]
pub struct Line<'a> {
    pub number: usize,
    pub text: &'a [u8],
}

/// Splits `bytes` into lines. A leading UTF-8 BOM is dropped, a trailing `\r` is removed
/// from each line, and blank lines at the end of the file are ignored. A blank line in the
/// middle of the file is an error, since every line of these formats carries a record.
pub fn lines<'a>(path: &Path, bytes: &'a [u8]) -> Result<Vec<Line<'a>>> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut out: Vec<Line<'a>> = Vec::with_capacity(bytes.len() / 8 + 1);
    let mut first_blank: Option<usize> = None;
    for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let text = raw.strip_suffix(b"\r").unwrap_or(raw);
        if text.iter().all(|b| b.is_ascii_whitespace()) {
            first_blank.get_or_insert(i + 1);
            continue;
        }
        if let Some(blank) = first_blank {
            return Err(Error::parse(
                path,
                blank,
                "blank line in the middle of the file; expected one record per line",
            ));
        }
        out.push(Line {
            number: i + 1,
            text,
        });
    }
    Ok(out)
}

/// Shows a field in an error message (lossy UTF-8, shortened).
pub fn show(field: &[u8]) -> String {
    let s = String::from_utf8_lossy(field);
    let s = s.trim();
    if s.chars().count() > 40 {
        let short: String = s.chars().take(40).collect();
        format!("\"{short}…\"")
    } else {
        format!("\"{s}\"")
    }
}

pub fn trim(field: &[u8]) -> &[u8] {
    let start = field
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(field.len());
    let end = field
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(start, |p| p + 1);
    &field[start..end.max(start)]
}

/// Parses a decimal integer (optional sign, surrounding whitespace allowed).
pub fn parse_i64(field: &[u8]) -> Option<i64> {
    let f = trim(field);
    let (neg, digits) = match f.first() {
        Some(b'-') => (true, &f[1..]),
        Some(b'+') => (false, &f[1..]),
        _ => (false, f),
    };
    if digits.is_empty() {
        return None;
    }
    let mut v: i64 = 0;
    for &d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_sub(i64::from(d - b'0'))?;
    }
    if neg {
        Some(v)
    } else {
        v.checked_neg()
    }
}

/// Parses a finite decimal floating-point number (surrounding whitespace allowed).
pub fn parse_f32(field: &[u8]) -> Option<f32> {
    let s = std::str::from_utf8(trim(field)).ok()?;
    let v: f32 = s.parse().ok()?;
    v.is_finite().then_some(v)
}

/// Splits a line into comma-separated fields.
pub fn fields(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    text.split(|&b| b == b',')
}

/// A line holding exactly one integer.
pub fn one_int(path: &Path, line: &Line, what: &str) -> Result<i64> {
    if line.text.contains(&b',') {
        let n = fields(line.text).count();
        return Err(Error::parse(
            path,
            line.number,
            format!("expected 1 value ({what}), found {n} comma-separated values"),
        ));
    }
    parse_i64(line.text).ok_or_else(|| {
        Error::parse(
            path,
            line.number,
            format!("expected an integer ({what}), found {}", show(line.text)),
        )
    })
}

/// A line holding exactly `N` comma-separated integers.
pub fn int_fields<const N: usize>(path: &Path, line: &Line, what: &str) -> Result<[i64; N]> {
    let mut out = [0i64; N];
    let mut count = 0usize;
    for f in fields(line.text) {
        if count < N {
            out[count] = parse_i64(f).ok_or_else(|| {
                Error::parse(
                    path,
                    line.number,
                    format!(
                        "expected an integer in column {} of {N} ({what}), found {}",
                        count + 1,
                        show(f)
                    ),
                )
            })?;
        }
        count += 1;
    }
    if count != N {
        return Err(Error::parse(
            path,
            line.number,
            format!("expected {N} comma-separated values ({what}), found {count}"),
        ));
    }
    Ok(out)
}

/// A line of comma-separated floats appended to `out`; returns how many were read.
pub fn float_fields(path: &Path, line: &Line, out: &mut Vec<f32>) -> Result<usize> {
    let mut count = 0usize;
    for f in fields(line.text) {
        let v = parse_f32(f).ok_or_else(|| {
            Error::parse(
                path,
                line.number,
                format!(
                    "expected a finite number in column {}, found {}",
                    count + 1,
                    show(f)
                ),
            )
        })?;
        out.push(v);
        count += 1;
    }
    Ok(count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers() {
        assert_eq!(parse_i64(b" 12"), Some(12));
        assert_eq!(parse_i64(b"-1 "), Some(-1));
        assert_eq!(parse_i64(b"+7"), Some(7));
        assert_eq!(parse_i64(b"\t0\t"), Some(0));
        assert_eq!(parse_i64(b""), None);
        assert_eq!(parse_i64(b"-"), None);
        assert_eq!(parse_i64(b"1.0"), None);
        assert_eq!(parse_i64(b"1 2"), None);
        assert_eq!(parse_i64(b"9223372036854775807"), Some(i64::MAX));
        assert_eq!(parse_i64(b"-9223372036854775808"), Some(i64::MIN));
        assert_eq!(parse_i64(b"9223372036854775808"), None);
    }

    #[test]
    fn floats() {
        assert_eq!(parse_f32(b"  0.5"), Some(0.5));
        assert_eq!(parse_f32(b"-2e3 "), Some(-2000.0));
        assert_eq!(parse_f32(b"nan"), None);
        assert_eq!(parse_f32(b"x"), None);
    }

    #[test]
    fn line_splitting() {
        let p = Path::new("f.txt");
        let l = lines(p, b"\xEF\xBB\xBF1\r\n2\n\n\n").unwrap();
        assert_eq!(l.len(), 2);
        assert_eq!(l[0].text, b"1");
        assert_eq!(l[1].number, 2);
        let e = lines(p, b"1\n\n2\n").unwrap_err().to_string();
        assert!(e.starts_with("f.txt:2:"), "{e}");
        let pair: [i64; 2] = int_fields(p, &l[0], "ids").unwrap_or([0, 0]);
        assert!(pair == [0, 0]);
        let l = lines(p, b"3, 4\n").unwrap();
        assert_eq!(int_fields::<2>(p, &l[0], "ids").unwrap(), [3, 4]);
    }
}
