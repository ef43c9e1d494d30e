//! Lines of input read within a bound, for every face that reads one
//! request or position per line (`solvedb serve --stdio`, `solvedb probe
//! GAME -`): a hostile line is refused by its length or encoding without
//! being kept in memory, and the next line is read as usual.

use std::io::{self, BufRead, ErrorKind as IoErrorKind};

/// The longest line read; a longer one is refused and its bytes are
/// skipped, not kept. Requests are a game name and one position of at most
/// [`MAX_NOTATION_LEN`](crate::MAX_NOTATION_LEN) bytes, so a valid one is
/// far shorter.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// One line of input, read within [`MAX_LINE_BYTES`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputLine {
    /// A line of text, without its line ending (`\n` or `\r\n`).
    Text(String),
    /// A line that cannot be a request, and why: too long, or not UTF-8.
    /// Faces answer it with an error of kind
    /// [`request`](crate::ErrorKind::Request).
    Refused(String),
}

/// Reads the next line (ended by `\n` or the end of input) using `buffer`,
/// keeping at most [`MAX_LINE_BYTES`] of it; `None` at the end of input.
///
/// # Errors
///
/// Only the input's own I/O errors (an interrupted read is retried).
pub fn read_line(input: &mut impl BufRead, buffer: &mut Vec<u8>) -> io::Result<Option<InputLine>> {
    buffer.clear();
    let mut length = 0usize;
    let mut seen_any = false;
    loop {
        let available = match input.fill_buf() {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == IoErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            if !seen_any {
                return Ok(None);
            }
            break;
        }
        seen_any = true;
        let (chunk, ended) = match available.iter().position(|&b| b == b'\n') {
            Some(end) => (&available[..end], true),
            None => (available, false),
        };
        let room = MAX_LINE_BYTES.saturating_sub(buffer.len());
        buffer.extend_from_slice(&chunk[..chunk.len().min(room)]);
        length += chunk.len();
        let consumed = chunk.len() + usize::from(ended);
        input.consume(consumed);
        if ended {
            break;
        }
    }
    if length > MAX_LINE_BYTES {
        return Ok(Some(InputLine::Refused(format!(
            "request line of {length} bytes is longer than the limit of {MAX_LINE_BYTES}"
        ))));
    }
    if buffer.last() == Some(&b'\r') {
        buffer.pop();
    }
    Ok(Some(match std::str::from_utf8(buffer) {
        Ok(text) => InputLine::Text(text.to_owned()),
        Err(e) => InputLine::Refused(format!(
            "request line is not UTF-8 (invalid byte at offset {})",
            e.valid_up_to()
        )),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8]) -> Vec<Result<String, String>> {
        let mut reader = io::BufReader::with_capacity(7, input);
        let mut buffer = Vec::new();
        let mut out = Vec::new();
        while let Some(line) = read_line(&mut reader, &mut buffer).unwrap() {
            out.push(match line {
                InputLine::Text(text) => Ok(text),
                InputLine::Refused(why) => Err(why),
            });
        }
        out
    }

    #[test]
    fn lines_are_bounded_and_checked_for_utf8() {
        let limit = "a".repeat(MAX_LINE_BYTES);
        let over = "b".repeat(MAX_LINE_BYTES + 1);
        let input = format!("one\r\n\ntwo\n{limit}\n{over}\nlast");
        let got = lines(input.as_bytes());
        assert_eq!(got.len(), 6);
        assert_eq!(got[0], Ok("one".into()));
        assert_eq!(got[1], Ok(String::new()));
        assert_eq!(got[2], Ok("two".into()));
        assert_eq!(got[3], Ok(limit));
        assert!(got[4].as_ref().is_err_and(|e| e.contains("longer than")));
        assert_eq!(got[5], Ok("last".into()));
        let got = lines(b"ok\n\xff\xfe\nok");
        assert_eq!(got[0], Ok("ok".into()));
        assert!(got[1].as_ref().is_err_and(|e| e.contains("not UTF-8")));
        assert_eq!(got[2], Ok("ok".into()));
        assert!(lines(b"").is_empty());
    }
}
