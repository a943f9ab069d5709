//! `tandem run`: the structured dialogs at the terminal (`tool/requestUserInput`,
//! `agent/requestUserInput`, `agent/askUserQuestion`).
//!
//! Options are numbered; a multiple choice takes several numbers (`1,3`); where a free-form
//! answer is allowed, anything that is not a number is taken as the answer. `/cancel`
//! answers the request with the error `-32000 "User cancelled input"`, which the model sees.
//! Prompts go to the terminal's stdout (the protocol runs over the child's pipes, not ours);
//! answers are read from stdin.

#![allow(
    clippy::print_stdout,
    reason = "a terminal client talks to the terminal"
)]

use std::io::{BufRead, Write};

use serde_json::{Value, json};

/// The error a client answers when the user cancels a dialog.
pub const CANCELLED: (i64, &str) = (-32000, "User cancelled input");

/// What the person at the terminal said.
pub enum Reply {
    /// The result to send.
    Answer(Value),
    /// Send [`CANCELLED`].
    Cancel,
}

/// Whether someone answers at the terminal.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Asker {
    /// Read answers from stdin.
    Person,
    /// Nobody: choice questions take their first option, free text is cancelled.
    Nobody,
}

/// `tool/requestUserInput {questions: [{text, options, isOther}]}` →
/// `{answers: [{questionIndex, selected}]}`.
pub fn tool_request_user_input(params: &Value, asker: Asker) -> Reply {
    let mut answers = Vec::new();
    for (index, question) in questions(params).iter().enumerate() {
        let options = labels(&question["options"]);
        let allow_other = question["isOther"].as_bool().unwrap_or(false);
        let text = question["text"].as_str().unwrap_or_default();
        match choose(text, &options, false, allow_other, asker) {
            Some(selected) => answers.push(json!({"questionIndex": index, "selected": selected})),
            None => return Reply::Cancel,
        }
    }
    Reply::Answer(json!({"answers": answers}))
}

/// `agent/askUserQuestion {questions: [{type, text, options, allowOther}]}` →
/// `{answers: [{questionIndex, selected}]}`.
pub fn agent_ask_user_question(params: &Value, asker: Asker) -> Reply {
    let mut answers = Vec::new();
    for (index, question) in questions(params).iter().enumerate() {
        let options = labels(&question["options"]);
        let multiple = question["type"].as_str() == Some("multi_choice");
        let allow_other = question["allowOther"].as_bool().unwrap_or(false);
        let text = question["text"].as_str().unwrap_or_default();
        match choose(text, &options, multiple, allow_other, asker) {
            Some(selected) => answers.push(json!({"questionIndex": index, "selected": selected})),
            None => return Reply::Cancel,
        }
    }
    Reply::Answer(json!({"answers": answers}))
}

/// `agent/requestUserInput {prompt}` → `{userInput}`.
pub fn agent_request_user_input(params: &Value, asker: Asker) -> Reply {
    println!("\n? {}", params["prompt"].as_str().unwrap_or_default());
    if asker == Asker::Nobody {
        println!("  → cancelled (nobody to answer)");
        return Reply::Cancel;
    }
    let Some(line) = read_answer("  your answer (/cancel to cancel): ") else {
        return Reply::Cancel;
    };
    if line == "/cancel" {
        return Reply::Cancel;
    }
    Reply::Answer(json!({"userInput": line}))
}

fn questions(params: &Value) -> Vec<Value> {
    params["questions"].as_array().cloned().unwrap_or_default()
}

fn labels(options: &Value) -> Vec<String> {
    options
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|option| option.as_str().map(str::to_string))
        .collect()
}

/// Shows one question and reads the selection; `None` when the user cancels.
fn choose(
    text: &str,
    options: &[String],
    multiple: bool,
    allow_other: bool,
    asker: Asker,
) -> Option<Vec<String>> {
    println!("\n? {text}");
    for (index, option) in options.iter().enumerate() {
        println!("  {}. {option}", index + 1);
    }
    if asker == Asker::Nobody {
        let first: Vec<String> = options.first().cloned().into_iter().collect();
        println!("  → {}", first.join(", "));
        return Some(first);
    }
    let mut hint = if multiple {
        "numbers separated by commas".to_string()
    } else {
        "a number".to_string()
    };
    if allow_other {
        hint.push_str(" or your own answer");
    }
    loop {
        let line = read_answer(&format!("  answer ({hint}; /cancel to cancel): "))?;
        if line == "/cancel" {
            return None;
        }
        match parse_selection(&line, options, multiple, allow_other) {
            Ok(selected) => return Some(selected),
            Err(message) => println!("  {message}"),
        }
    }
}

/// Turns a typed answer into the selected labels.
fn parse_selection(
    line: &str,
    options: &[String],
    multiple: bool,
    allow_other: bool,
) -> Result<Vec<String>, String> {
    let parts: Vec<&str> = line
        .split([',', ' '])
        .map(str::trim)
        .filter(|part| !part.is_empty())
        .collect();
    let numbers: Option<Vec<usize>> = parts.iter().map(|part| part.parse().ok()).collect();
    match numbers {
        Some(numbers) if !numbers.is_empty() => {
            if !multiple && numbers.len() > 1 {
                return Err("choose one option".to_string());
            }
            numbers
                .into_iter()
                .map(|number| {
                    options
                        .get(number.wrapping_sub(1))
                        .cloned()
                        .ok_or_else(|| format!("no option {number}"))
                })
                .collect()
        }
        _ if allow_other && !line.is_empty() => Ok(vec![line.to_string()]),
        _ => Err("type the number of an option".to_string()),
    }
}

/// Prints `prompt` and reads one line; `None` at the end of stdin.
fn read_answer(prompt: &str) -> Option<String> {
    print!("{prompt}");
    let _ = std::io::stdout().flush();
    let mut line = String::new();
    match std::io::stdin().lock().read_line(&mut line) {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(line.trim().to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selections_parse() {
        let options = vec!["a".to_string(), "b".to_string(), "c".to_string()];
        assert_eq!(
            parse_selection("2", &options, false, false),
            Ok(vec!["b".into()])
        );
        assert_eq!(
            parse_selection("1, 3", &options, true, false),
            Ok(vec!["a".into(), "c".into()])
        );
        assert!(parse_selection("1,3", &options, false, false).is_err());
        assert!(parse_selection("9", &options, false, false).is_err());
        assert!(parse_selection("mine", &options, false, false).is_err());
        assert_eq!(
            parse_selection("my own", &options, false, true),
            Ok(vec!["my own".into()])
        );
    }
}
