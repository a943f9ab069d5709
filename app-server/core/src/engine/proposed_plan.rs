//! The `<proposed_plan>` block of a plan-mode answer, read as the answer streams.
//!
//! A tag counts only on a line of its own (surrounding whitespace allowed), so a plan can
//! mention the tag in prose. Since a delta may end in the middle of a line, the start of each
//! line is held back while it could still become a tag line, and let go as soon as it cannot.

const OPEN_TAG: &str = "<proposed_plan>";
const CLOSE_TAG: &str = "</proposed_plan>";

/// A piece of the answer, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum PlanSegment {
    /// Text outside the plan block: the agent message.
    Text(String),
    /// The opening tag line.
    PlanStart,
    /// Text inside the plan block.
    PlanDelta(String),
    /// The closing tag line, or the end of an answer that never closed its block.
    PlanEnd,
}

/// A streaming reader of one answer.
#[derive(Debug, Default)]
pub(super) struct ProposedPlanParser {
    /// Inside the plan block.
    in_plan: bool,
    /// The start of the current line while it may still be a tag line.
    held: String,
    /// The current line can no longer be a tag line: its text passes straight through.
    plain_line: bool,
}

impl ProposedPlanParser {
    /// Reads the next delta of the answer.
    pub(super) fn push(&mut self, delta: &str) -> Vec<PlanSegment> {
        let mut out = Vec::new();
        let mut run = String::new();
        for ch in delta.chars() {
            if self.plain_line {
                run.push(ch);
                if ch == '\n' {
                    self.plain_line = false;
                    self.text(std::mem::take(&mut run), &mut out);
                }
                continue;
            }
            self.held.push(ch);
            if ch == '\n' {
                let line = std::mem::take(&mut self.held);
                self.end_line(line, &mut out);
                continue;
            }
            if !could_be_tag(&self.held) {
                self.plain_line = true;
                run = std::mem::take(&mut self.held);
            }
        }
        if !run.is_empty() {
            self.text(run, &mut out);
        }
        out
    }

    /// Ends the answer: a held line is decided, and an open block is closed.
    pub(super) fn finish(&mut self) -> Vec<PlanSegment> {
        let mut out = Vec::new();
        let line = std::mem::take(&mut self.held);
        if !line.is_empty() {
            self.end_line(line, &mut out);
        }
        if self.in_plan {
            self.in_plan = false;
            out.push(PlanSegment::PlanEnd);
        }
        self.plain_line = false;
        out
    }

    fn end_line(&mut self, line: String, out: &mut Vec<PlanSegment>) {
        let tag = line.trim();
        if !self.in_plan && tag == OPEN_TAG {
            self.in_plan = true;
            out.push(PlanSegment::PlanStart);
        } else if self.in_plan && tag == CLOSE_TAG {
            self.in_plan = false;
            out.push(PlanSegment::PlanEnd);
        } else {
            self.text(line, out);
        }
    }

    fn text(&self, text: String, out: &mut Vec<PlanSegment>) {
        if text.is_empty() {
            return;
        }
        match (self.in_plan, out.last_mut()) {
            (false, Some(PlanSegment::Text(last))) | (true, Some(PlanSegment::PlanDelta(last))) => {
                last.push_str(&text);
            }
            (false, _) => out.push(PlanSegment::Text(text)),
            (true, _) => out.push(PlanSegment::PlanDelta(text)),
        }
    }
}

/// Whether a line beginning with `start` may still turn out to be a tag line.
fn could_be_tag(start: &str) -> bool {
    let start = start.trim();
    start.is_empty() || OPEN_TAG.starts_with(start) || CLOSE_TAG.starts_with(start)
}

/// The text of the last plan block of a whole answer, if it has one.
pub(super) fn plan_text(answer: &str) -> Option<String> {
    let mut parser = ProposedPlanParser::default();
    let mut segments = parser.push(answer);
    segments.extend(parser.finish());
    let mut plan = None;
    for segment in segments {
        match segment {
            PlanSegment::PlanStart => plan = Some(String::new()),
            PlanSegment::PlanDelta(text) => {
                if let Some(plan) = plan.as_mut() {
                    plan.push_str(&text);
                }
            }
            PlanSegment::Text(_) | PlanSegment::PlanEnd => {}
        }
    }
    plan
}

/// A whole answer without its plan blocks: the agent message's text.
pub(super) fn without_plan(answer: &str) -> String {
    let mut parser = ProposedPlanParser::default();
    let mut segments = parser.push(answer);
    segments.extend(parser.finish());
    segments
        .into_iter()
        .filter_map(|segment| match segment {
            PlanSegment::Text(text) => Some(text),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::PlanSegment::{PlanDelta, PlanEnd, PlanStart, Text};
    use super::{PlanSegment, ProposedPlanParser, plan_text, without_plan};

    fn parse(deltas: &[&str]) -> Vec<PlanSegment> {
        let mut parser = ProposedPlanParser::default();
        let mut out: Vec<PlanSegment> = Vec::new();
        for delta in deltas {
            out.extend(parser.push(delta));
        }
        out.extend(parser.finish());
        out
    }

    #[test]
    fn tags_split_across_deltas_are_found() {
        assert_eq!(
            parse(&[
                "Intro\n<prop",
                "osed_plan>\n- one\n- t",
                "wo\n</proposed",
                "_plan>\nOutro"
            ]),
            vec![
                Text("Intro\n".into()),
                PlanStart,
                PlanDelta("- one\n- t".into()),
                PlanDelta("wo\n".into()),
                PlanEnd,
                Text("Outro".into()),
            ]
        );
    }

    #[test]
    fn a_tag_with_other_text_on_its_line_is_text() {
        assert_eq!(
            parse(&["  <proposed_plan> and more\n"]),
            vec![Text("  <proposed_plan> and more\n".into())]
        );
        assert_eq!(
            parse(&["<proposed_plan>x"]),
            vec![Text("<proposed_plan>x".into())]
        );
    }

    #[test]
    fn an_unclosed_block_ends_with_the_answer_and_tags_may_carry_spaces() {
        assert_eq!(
            parse(&["<proposed_plan>   \n- step\n"]),
            vec![PlanStart, PlanDelta("- step\n".into()), PlanEnd]
        );
        assert_eq!(parse(&["<proposed_plan>"]), vec![PlanStart, PlanEnd]);
    }

    #[test]
    fn whole_answers_split_into_plan_and_message() {
        let answer = "before\n<proposed_plan>\n- step\n</proposed_plan>\nafter";
        assert_eq!(plan_text(answer), Some("- step\n".into()));
        assert_eq!(without_plan(answer), "before\nafter");
        assert_eq!(plan_text("no plan here\n"), None);
    }
}
