//! An incremental parser of `text/event-stream` bodies, as the WHATWG HTML standard defines
//! them (section "Server-sent events", interpreting an event stream).
//!
//! Bytes go in as they arrive ([`SseParser::push`]); complete events come out
//! ([`SseParser::next_event`]) without copying the buffer per line: the parser keeps one
//! buffer and a read offset, finds line ends with `memchr`, and compacts the buffer only when
//! the consumed part outweighs the rest. Lines end at CRLF, LF or a lone CR; a line starting
//! with `:` is a comment; `event` sets the type, `data` lines are joined with `\n`, `id` and
//! `retry` are kept; a blank line dispatches the event (an event without data is dropped). An
//! event still open when the body ends is dropped, as the standard says.
//!
//! The body comes from a provider and is not trusted: a line, and the data of an event, may
//! hold at most [`MAX_LINE_BYTES`], so a body without line ends cannot grow the buffer without
//! bound.

/// Longest line, and largest data of one event, accepted from an event stream (16 MiB).
/// The parser holds a line until its end arrives; real events stay far below this (the
/// largest, `response.completed`, repeats the response's output).
pub(crate) const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The event type: the last `event:` field, `message` when there was none.
    pub event: String,
    /// The `data:` lines joined with `\n`.
    pub data: String,
    /// The last event id seen on the stream (the `id:` field persists across events).
    pub id: String,
    /// A `retry:` reconnection time in milliseconds, when this event carried one.
    pub retry: Option<u64>,
}

/// Why the body is not a usable event stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseError {
    /// A line of the body is not UTF-8.
    InvalidUtf8,
    /// A line is longer than [`MAX_LINE_BYTES`] (or has not ended by then).
    LineTooLong,
    /// The `data` lines of one event add up to more than [`MAX_LINE_BYTES`].
    EventTooLarge,
}

impl std::fmt::Display for SseError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(match self {
            SseError::InvalidUtf8 => "a line of the event stream is not valid UTF-8",
            SseError::LineTooLong => "a line of the event stream is longer than 16 MiB",
            SseError::EventTooLarge => "the data of one event is larger than 16 MiB",
        })
    }
}

/// Incremental event-stream parser; see the module documentation.
#[derive(Debug, Default)]
pub struct SseParser {
    /// Unparsed bytes live in `buffer[read..]`.
    buffer: Vec<u8>,
    read: usize,
    /// `buffer[read..read + scanned]` holds no line end: it was searched when it arrived, so
    /// a long line that comes in many chunks is searched once, not once per chunk.
    scanned: usize,
    /// A CR ended the last line: an LF right after it belongs to that line end.
    after_cr: bool,
    /// The byte-order mark check at the start of the stream is done.
    started: bool,
    event_type: String,
    data: String,
    has_data: bool,
    last_id: String,
    retry: Option<u64>,
}

impl SseParser {
    /// A parser at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends bytes received from the body.
    pub fn push(&mut self, bytes: &[u8]) {
        // Reclaim the consumed prefix once it is at least as large as what is left, so the
        // copy is amortised over the bytes already parsed.
        if self.read > 0 && self.read >= self.buffer.len() - self.read {
            self.buffer.drain(..self.read);
            self.read = 0;
        }
        self.buffer.extend_from_slice(bytes);
    }

    /// The next complete event in the bytes pushed so far, if any.
    pub fn next_event(&mut self) -> Result<Option<SseEvent>, SseError> {
        if !self.started {
            const BOM: &[u8] = b"\xEF\xBB\xBF";
            let pending = &self.buffer[self.read..];
            if pending.len() < BOM.len() && BOM.starts_with(pending) {
                // Too few bytes to tell whether the stream opens with a byte-order mark.
                return Ok(None);
            }
            if pending.starts_with(BOM) {
                self.read += BOM.len();
            }
            self.started = true;
        }
        loop {
            if self.after_cr && self.buffer.get(self.read) == Some(&b'\n') {
                self.read += 1;
            }
            let pending = &self.buffer[self.read..];
            if !pending.is_empty() {
                self.after_cr = false;
            }
            let Some(offset) = memchr::memchr2(b'\n', b'\r', &pending[self.scanned..]) else {
                if pending.len() > MAX_LINE_BYTES {
                    return Err(SseError::LineTooLong);
                }
                self.scanned = pending.len();
                return Ok(None);
            };
            let end = self.scanned + offset;
            self.scanned = 0;
            if end > MAX_LINE_BYTES {
                return Err(SseError::LineTooLong);
            }
            self.after_cr = pending[end] == b'\r';
            let start = self.read;
            self.read += end + 1;
            let line = std::str::from_utf8(&self.buffer[start..start + end])
                .map_err(|_| SseError::InvalidUtf8)?;
            if line.is_empty() {
                if let Some(event) = self.dispatch() {
                    return Ok(Some(event));
                }
                continue;
            }
            if line.starts_with(':') {
                continue;
            }
            let (field, value) = match line.split_once(':') {
                Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
                None => (line, ""),
            };
            match field {
                "event" => {
                    self.event_type.clear();
                    self.event_type.push_str(value);
                }
                "data" => {
                    if self.data.len() + usize::from(self.has_data) + value.len() > MAX_LINE_BYTES {
                        return Err(SseError::EventTooLarge);
                    }
                    if self.has_data {
                        self.data.push('\n');
                    }
                    self.data.push_str(value);
                    self.has_data = true;
                }
                "id" if !value.contains('\0') => {
                    self.last_id.clear();
                    self.last_id.push_str(value);
                }
                "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                    self.retry = value.parse().ok();
                }
                _ => {}
            }
        }
    }

    /// Ends the event being built at a blank line: the event, unless it had no data.
    fn dispatch(&mut self) -> Option<SseEvent> {
        let retry = self.retry.take();
        if !self.has_data {
            self.event_type.clear();
            return None;
        }
        self.has_data = false;
        let event = if self.event_type.is_empty() {
            "message".to_string()
        } else {
            std::mem::take(&mut self.event_type)
        };
        Some(SseEvent {
            event,
            data: std::mem::take(&mut self.data),
            id: self.last_id.clone(),
            retry,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events_of(chunks: &[&[u8]]) -> Result<Vec<SseEvent>, SseError> {
        let mut parser = SseParser::new();
        let mut events = Vec::new();
        for chunk in chunks {
            parser.push(chunk);
            while let Some(event) = parser.next_event()? {
                events.push(event);
            }
        }
        Ok(events)
    }

    fn event(kind: &str, data: &str) -> SseEvent {
        SseEvent {
            event: kind.to_string(),
            data: data.to_string(),
            id: String::new(),
            retry: None,
        }
    }

    #[test]
    fn fields_comments_and_multiline_data() {
        let body =
            b": comment\nevent: response.output_text.delta\ndata: {\"a\":1}\n\ndata:x\ndata: y\n\n";
        assert_eq!(
            events_of(&[body]).expect("parse"),
            vec![
                event("response.output_text.delta", "{\"a\":1}"),
                event("message", "x\ny"),
            ]
        );
    }

    #[test]
    fn every_line_ending_and_any_split_gives_the_same_events() {
        let bodies: [&[u8]; 3] = [
            b"event: a\ndata: 1\n\ndata: 2\n\n",
            b"event: a\r\ndata: 1\r\n\r\ndata: 2\r\n\r\n",
            b"event: a\rdata: 1\r\rdata: 2\r\r",
        ];
        let expected = vec![event("a", "1"), event("message", "2")];
        for body in bodies {
            for split in 0..=body.len() {
                let (first, second) = body.split_at(split);
                assert_eq!(
                    events_of(&[first, second]).expect("parse"),
                    expected,
                    "split at {split} of {:?}",
                    String::from_utf8_lossy(body)
                );
            }
            let bytes: Vec<&[u8]> = body.chunks(1).collect();
            assert_eq!(events_of(&bytes).expect("parse"), expected);
        }
    }

    #[test]
    fn events_without_data_are_dropped_and_open_events_are_not_dispatched() {
        let body = b"event: ping\n\nid: 7\nretry: 100\ndata: kept\n\nevent: late\ndata: open";
        let events = events_of(&[body]).expect("parse");
        assert_eq!(
            events,
            vec![SseEvent {
                event: "message".into(),
                data: "kept".into(),
                id: "7".into(),
                retry: Some(100),
            }]
        );
    }

    #[test]
    fn a_byte_order_mark_is_skipped_even_when_split() {
        let body = b"\xEF\xBB\xBFdata: 1\n\n";
        for split in 0..4 {
            let (first, second) = body.split_at(split);
            assert_eq!(
                events_of(&[first, second]).expect("parse"),
                vec![event("message", "1")]
            );
        }
    }

    #[test]
    fn invalid_utf8_is_an_error() {
        assert_eq!(events_of(&[b"data: \xFF\n\n"]), Err(SseError::InvalidUtf8));
    }

    #[test]
    fn many_events_in_one_chunk_all_come_out() {
        let frame = b"data: {\"type\":\"response.output_text.delta\",\"delta\":\"tok \"}\n\n";
        let body: Vec<u8> = frame
            .iter()
            .copied()
            .cycle()
            .take(frame.len() * 50_000)
            .collect();
        let events = events_of(&[&body]).expect("parse");
        assert_eq!(events.len(), 50_000);
    }

    #[test]
    fn a_line_without_an_end_fails_once_it_passes_the_cap() {
        let mut parser = SseParser::new();
        parser.push(b"data: ");
        let chunk = vec![b'x'; 64 * 1024];
        let mut pushed = 6;
        let error = loop {
            match parser.next_event() {
                Ok(None) => {}
                other => break other,
            }
            assert!(pushed <= MAX_LINE_BYTES, "no error after {pushed} bytes");
            parser.push(&chunk);
            pushed += chunk.len();
        };
        assert_eq!(error, Err(SseError::LineTooLong));
        // The buffer never held much more than the cap.
        assert!(parser.buffer.len() <= MAX_LINE_BYTES + chunk.len());
    }

    #[test]
    fn a_whole_line_over_the_cap_fails_and_one_at_the_cap_passes() {
        let mut body = b"data: ".to_vec();
        body.resize(MAX_LINE_BYTES, b'x');
        body.extend_from_slice(b"\n\n");
        let events = events_of(&[&body]).expect("a line of exactly the cap");
        assert_eq!(events.len(), 1);
        let mut body = b"data: ".to_vec();
        body.resize(MAX_LINE_BYTES + 1, b'x');
        body.extend_from_slice(b"\n\n");
        assert_eq!(events_of(&[&body]), Err(SseError::LineTooLong));
    }

    #[test]
    fn data_lines_adding_up_past_the_cap_fail() {
        let line = format!("data: {}\n", "x".repeat(1024 * 1024));
        let body = line.repeat(17);
        assert_eq!(events_of(&[body.as_bytes()]), Err(SseError::EventTooLarge));
    }
}
