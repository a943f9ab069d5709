//! The patch grammar of `model-wire.md` §3.1: envelope, file operations and update chunks.
//!
//! The parser is lenient where models are sloppy (whitespace around markers, a heredoc wrapper
//! around the whole patch, blank lines between operations, git-style `@@ -1,3 +1,3 @@` chunk
//! headers) and strict everywhere else, naming the offending line so the model can fix it.

use std::path::PathBuf;

use super::error::ParseError;

/// A parsed patch: the file operations in the order they appear.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patch {
    /// The operations, in patch order.
    pub operations: Vec<FileOperation>,
}

/// One `*** Add/Delete/Update File:` section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileOperation {
    /// `*** Add File: <path>`: create (or overwrite) a file.
    Add {
        /// The path as written in the patch.
        path: PathBuf,
        /// The full new content, each `+` line followed by `\n`.
        contents: String,
    },
    /// `*** Delete File: <path>`: remove an existing file.
    Delete {
        /// The path as written in the patch.
        path: PathBuf,
    },
    /// `*** Update File: <path>`: edit a file, optionally moving it.
    Update {
        /// The path as written in the patch.
        path: PathBuf,
        /// The `*** Move to:` destination as written in the patch.
        move_path: Option<PathBuf>,
        /// The chunks, in file order.
        chunks: Vec<UpdateChunk>,
    },
}

/// One change inside an updated file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct UpdateChunk {
    /// `@@ <anchor>` lines, outermost first; each is searched after the previous one.
    pub anchors: Vec<String>,
    /// Context and removed lines: the block to find.
    pub old_lines: Vec<String>,
    /// Context and added lines: the block that replaces it.
    pub new_lines: Vec<String>,
    /// `*** End of File` followed the chunk: it belongs at the end of the file.
    pub is_end_of_file: bool,
}

const BEGIN_PATCH: &str = "*** Begin Patch";
const END_PATCH: &str = "*** End Patch";
const ADD_FILE: &str = "*** Add File:";
const DELETE_FILE: &str = "*** Delete File:";
const UPDATE_FILE: &str = "*** Update File:";
const MOVE_TO: &str = "*** Move to:";
const END_OF_FILE: &str = "*** End of File";

/// Parses patch text (the freeform tool input, the JSON `input` argument or a heredoc body).
///
/// A heredoc wrapper around the whole patch (`<<'EOF'` … `EOF`) is stripped first, as some
/// models emit one inside the argument.
pub fn parse_patch(text: &str) -> Result<Patch, ParseError> {
    let lines: Vec<&str> = text.lines().collect();
    let (body_start, body_end) = envelope(&lines)?;
    let mut parser = Parser {
        lines: &lines,
        index: body_start,
        end: body_end,
    };
    let mut operations = Vec::new();
    while let Some(line) = parser.peek() {
        if line.trim().is_empty() {
            parser.index += 1;
            continue;
        }
        operations.push(parser.operation()?);
    }
    if operations.is_empty() {
        return Err(ParseError::NoOperations {
            line: body_end + 1,
            text: lines_text(&lines, body_end),
        });
    }
    Ok(Patch { operations })
}

/// Finds the envelope and returns the range of body lines (indices into `lines`, the end
/// being the index of the `*** End Patch` line).
fn envelope(lines: &[&str]) -> Result<(usize, usize), ParseError> {
    let Some(first) = lines.iter().position(|line| !line.trim().is_empty()) else {
        return Err(ParseError::MissingBegin {
            line: 1,
            text: String::new(),
        });
    };
    let last = lines
        .iter()
        .rposition(|line| !line.trim().is_empty())
        .unwrap_or(first);
    if let Some(delimiter) = heredoc_delimiter(lines[first])
        && last > first
        && lines[last].trim() == delimiter
    {
        return envelope_between(lines, first + 1, last);
    }
    envelope_between(lines, first, last + 1)
}

/// Checks the envelope within `lines[start..end]`, ignoring blank lines at either side.
fn envelope_between(
    lines: &[&str],
    start: usize,
    end: usize,
) -> Result<(usize, usize), ParseError> {
    let window = &lines[start..end];
    let Some(first) = window.iter().position(|line| !line.trim().is_empty()) else {
        return Err(ParseError::MissingBegin {
            line: start + 1,
            text: String::new(),
        });
    };
    let first = start + first;
    if lines[first].trim() != BEGIN_PATCH {
        return Err(ParseError::MissingBegin {
            line: first + 1,
            text: lines[first].to_string(),
        });
    }
    let last = start
        + window
            .iter()
            .rposition(|line| !line.trim().is_empty())
            .unwrap_or(0);
    if last == first || lines[last].trim() != END_PATCH {
        return Err(ParseError::MissingEnd {
            line: last + 1,
            text: lines[last].to_string(),
        });
    }
    Ok((first + 1, last))
}

/// The delimiter of a heredoc opener line such as `<<'EOF'`, `<<"PATCH"`, `<< EOF` or `<<-EOF`.
fn heredoc_delimiter(line: &str) -> Option<&str> {
    let rest = line.trim().strip_prefix("<<")?;
    let rest = rest.strip_prefix('-').unwrap_or(rest).trim_start();
    let word = ['\'', '"']
        .iter()
        .find_map(|quote| rest.strip_prefix(*quote)?.strip_suffix(*quote))
        .unwrap_or(rest);
    let valid = !word.is_empty()
        && word
            .chars()
            .all(|character| character.is_ascii_alphanumeric() || character == '_');
    valid.then_some(word)
}

fn lines_text(lines: &[&str], index: usize) -> String {
    lines
        .get(index)
        .map(|line| line.to_string())
        .unwrap_or_default()
}

/// A cursor over the body lines of the envelope.
struct Parser<'text> {
    lines: &'text [&'text str],
    index: usize,
    end: usize,
}

impl<'text> Parser<'text> {
    fn peek(&self) -> Option<&'text str> {
        (self.index < self.end).then(|| self.lines[self.index])
    }

    /// The 1-based line number of the current line.
    fn line_number(&self) -> usize {
        self.index + 1
    }

    fn current_text(&self) -> String {
        lines_text(self.lines, self.index)
    }

    fn operation(&mut self) -> Result<FileOperation, ParseError> {
        let header_line = self.line_number();
        let header = self.current_text();
        let trimmed = header.trim();
        if let Some(path) = trimmed.strip_prefix(ADD_FILE) {
            let path = header_path(path, header_line, &header)?;
            self.index += 1;
            return self.add_file(path);
        }
        if let Some(path) = trimmed.strip_prefix(DELETE_FILE) {
            let path = header_path(path, header_line, &header)?;
            self.index += 1;
            return Ok(FileOperation::Delete { path });
        }
        if let Some(path) = trimmed.strip_prefix(UPDATE_FILE) {
            let path = header_path(path, header_line, &header)?;
            self.index += 1;
            return self.update_file(path, header_line, header);
        }
        Err(ParseError::InvalidHeader {
            line: header_line,
            text: header,
        })
    }

    fn add_file(&mut self, path: PathBuf) -> Result<FileOperation, ParseError> {
        let mut contents = String::new();
        while let Some(line) = self.peek() {
            if let Some(content) = line.strip_prefix('+') {
                contents.push_str(content);
                contents.push('\n');
                self.index += 1;
                continue;
            }
            // A header or a blank separator ends the file; anything else is a line the model
            // forgot to prefix, which we refuse rather than silently drop.
            if line.trim().is_empty() || line.trim_start().starts_with("***") {
                break;
            }
            return Err(ParseError::InvalidAddLine {
                line: self.line_number(),
                text: line.to_string(),
            });
        }
        Ok(FileOperation::Add { path, contents })
    }

    fn update_file(
        &mut self,
        path: PathBuf,
        header_line: usize,
        header: String,
    ) -> Result<FileOperation, ParseError> {
        let mut move_path = None;
        if let Some(line) = self.peek()
            && let Some(destination) = line.trim().strip_prefix(MOVE_TO)
        {
            move_path = Some(header_path(destination, self.line_number(), line)?);
            self.index += 1;
        }
        let mut chunks = Vec::new();
        while let Some(line) = self.peek() {
            // Blank lines between chunks (before a chunk's first line) separate them.
            if line.trim().is_empty() {
                self.index += 1;
                continue;
            }
            if line.starts_with('*') {
                break;
            }
            chunks.push(self.chunk(chunks.is_empty())?);
        }
        if chunks.is_empty() {
            return Err(ParseError::EmptyUpdate {
                line: header_line,
                text: header,
            });
        }
        Ok(FileOperation::Update {
            path,
            move_path,
            chunks,
        })
    }

    /// Parses one chunk: its `@@` marker lines (optional for the first chunk), then its body.
    fn chunk(&mut self, is_first: bool) -> Result<UpdateChunk, ParseError> {
        let mut chunk = UpdateChunk::default();
        let marker_line = self.line_number();
        let marker_text = self.current_text();
        let mut has_marker = false;
        while let Some(line) = self.peek() {
            let Some(anchor) = chunk_marker(line) else {
                break;
            };
            has_marker = true;
            if let Some(anchor) = anchor {
                chunk.anchors.push(anchor.to_string());
            }
            self.index += 1;
        }
        if !has_marker && !is_first {
            return Err(ParseError::InvalidChunkLine {
                line: marker_line,
                text: marker_text,
            });
        }
        let mut body_lines = 0;
        while let Some(line) = self.peek() {
            if line.trim_end() == END_OF_FILE {
                if body_lines == 0 {
                    break;
                }
                chunk.is_end_of_file = true;
                self.index += 1;
                break;
            }
            match line.chars().next() {
                None => {
                    chunk.old_lines.push(String::new());
                    chunk.new_lines.push(String::new());
                }
                Some(' ') => {
                    chunk.old_lines.push(line[1..].to_string());
                    chunk.new_lines.push(line[1..].to_string());
                }
                Some('-') => chunk.old_lines.push(line[1..].to_string()),
                Some('+') => chunk.new_lines.push(line[1..].to_string()),
                // The next file header, or (when empty) reported as an empty chunk below.
                Some('*') => break,
                Some('@') if body_lines > 0 && chunk_marker(line).is_some() => break,
                Some(_) => {
                    return Err(ParseError::InvalidChunkLine {
                        line: self.line_number(),
                        text: line.to_string(),
                    });
                }
            }
            body_lines += 1;
            self.index += 1;
        }
        if body_lines == 0 {
            return Err(ParseError::EmptyChunk {
                line: marker_line,
                text: marker_text,
            });
        }
        Ok(chunk)
    }
}

/// Classifies a chunk marker line: `None` when it is not one, `Some(None)` for a bare `@@` (or a
/// git-style `@@ -1,3 +1,4 @@` header), `Some(Some(anchor))` for `@@ <anchor>`.
fn chunk_marker(line: &str) -> Option<Option<&str>> {
    let trimmed = line.trim_end();
    if trimmed == "@@" {
        return Some(None);
    }
    let anchor = trimmed.strip_prefix("@@ ")?;
    if let Some(after) = git_hunk_header_rest(anchor) {
        // Models trained on git diffs sometimes write `@@ -12,6 +12,7 @@ fn main()`; the numbers
        // are meaningless here, but git's trailing function context is an anchor.
        let after = after.trim();
        return Some((!after.is_empty()).then_some(after));
    }
    Some(Some(anchor))
}

/// When `text` starts like the rest of a git hunk header (`-1,3 +1,4 @@`), returns what follows
/// the closing `@@`.
fn git_hunk_header_rest(text: &str) -> Option<&str> {
    let (ranges, rest) = text.split_once("@@")?;
    let mut parts = ranges.split_whitespace();
    let old = parts.next()?.strip_prefix('-')?;
    let new = parts.next()?.strip_prefix('+')?;
    let is_range = |range: &str| {
        range.split(',').count() <= 2
            && range
                .split(',')
                .all(|number| !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()))
    };
    (parts.next().is_none() && is_range(old) && is_range(new)).then_some(rest)
}

/// The path of a header, trimmed; an empty path is an error naming the header line.
fn header_path(path: &str, line: usize, text: &str) -> Result<PathBuf, ParseError> {
    let path = path.trim();
    if path.is_empty() {
        return Err(ParseError::EmptyPath {
            line,
            text: text.to_string(),
        });
    }
    Ok(PathBuf::from(path))
}
