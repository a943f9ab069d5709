// The server's questions as forms: command and file-change approvals (accept, accept for the
// session, decline, cancel) and the structured questionnaires (choices, free text).
//
// Each dialog is a `<form>` in the thread's flow, reachable by keyboard, with labelled controls;
// its first control takes the focus when it appears.

import type { AgentAskUserQuestionParams } from "./generated-experimental/AgentAskUserQuestionParams.js";
import type { AgentRequestUserInputParams } from "./generated-experimental/AgentRequestUserInputParams.js";
import type { CommandExecutionRequestApprovalParams } from "./generated-experimental/CommandExecutionRequestApprovalParams.js";
import type { FileChangeRequestApprovalParams } from "./generated-experimental/FileChangeRequestApprovalParams.js";
import type { McpServerElicitationRequestParams } from "./generated-experimental/McpServerElicitationRequestParams.js";
import type { QuestionAnswer } from "./generated-experimental/QuestionAnswer.js";
import type { ToolRequestUserInputParams } from "./generated-experimental/ToolRequestUserInputParams.js";
import type { UserInputRequestParams } from "./generated-experimental/UserInputRequestParams.js";
import { h } from "./render.js";
import type { ServerRequest } from "./rpc.js";

/** Sends the answer to a dialog's request. */
export type Answer = (result: unknown) => void;

let formCount = 0;

function form(title: string, ...body: (Node | null)[]): HTMLFormElement {
  const id = `dialog-${++formCount}`;
  const element = h("form", { class: "dialog", role: "group", "aria-labelledby": id }) as HTMLFormElement;
  element.append(h("h3", { id }, title), ...body.filter((node): node is Node => node !== null));
  element.addEventListener("submit", (event) => event.preventDefault());
  return element;
}

function button(label: string, onClick: () => void, kind = ""): HTMLButtonElement {
  const element = h("button", { type: "button", class: kind }, label) as HTMLButtonElement;
  element.addEventListener("click", onClick);
  return element;
}

/** Disables a dialog once answered and says what was answered. */
function settle(element: HTMLFormElement, summary: string): void {
  for (const control of element.querySelectorAll("button, input, textarea")) (control as HTMLInputElement).disabled = true;
  element.classList.add("answered");
  element.append(h("p", { class: "answer", role: "status" }, summary));
}

const DECISIONS: [string, string][] = [
  ["accept", "Accept"],
  ["acceptForSession", "Accept for session"],
  ["decline", "Decline"],
  ["cancel", "Cancel turn"],
];

function approval(title: string, details: (Node | null)[], offered: (decision: string) => boolean, answer: Answer): HTMLFormElement {
  const element = form(title, ...details);
  const actions = h("div", { class: "actions" });
  for (const [decision, label] of DECISIONS) {
    if (!offered(decision)) continue;
    actions.append(
      button(
        label,
        () => {
          answer({ decision });
          settle(element, `Answered: ${label}`);
        },
        decision === "accept" ? "primary" : "",
      ),
    );
  }
  element.append(actions);
  return element;
}

/** A question that offers options, as radio buttons or checkboxes, with an optional "other". */
function choices(
  name: string,
  question: string,
  options: { label: string; description?: string }[],
  multiple: boolean,
  other: boolean,
  secret = false,
): { fieldset: HTMLElement; selected: () => string[] } {
  const fieldset = h("fieldset", {}, h("legend", {}, question));
  const inputs: HTMLInputElement[] = [];
  options.forEach((option, index) => {
    const id = `${name}-${index}`;
    const input = h("input", { type: multiple ? "checkbox" : "radio", name, id, value: option.label }) as HTMLInputElement;
    inputs.push(input);
    fieldset.append(
      h("div", { class: "choice" }, input, h("label", { for: id }, option.label), option.description ? h("small", {}, ` ${option.description}`) : null),
    );
  });
  let text: HTMLInputElement | null = null;
  if (other || options.length === 0) {
    const id = `${name}-other`;
    text = h("input", { type: secret ? "password" : "text", id, autocomplete: "off" }) as HTMLInputElement;
    fieldset.append(h("div", { class: "other" }, h("label", { for: id }, options.length === 0 ? "Answer" : "Other"), text));
  }
  const selected = () => {
    const picked = inputs.filter((input) => input.checked).map((input) => input.value);
    const typed = text?.value.trim() ?? "";
    return typed !== "" ? [...picked, typed] : picked;
  };
  return { fieldset, selected };
}

function questionnaire(title: string, parts: { fieldset: HTMLElement }[], submit: () => void, cancel: () => void): HTMLFormElement {
  const element = form(title, ...parts.map((part) => part.fieldset));
  element.append(h("div", { class: "actions" }, button("Send answers", submit, "primary"), button("Skip", cancel)));
  return element;
}

/** The dialog of a server request, or `null` for a request the page does not answer itself. */
export function dialogFor(request: ServerRequest, answer: Answer): HTMLFormElement | null {
  const name = `q${request.id}`;
  switch (request.method) {
    case "item/commandExecution/requestApproval": {
      const params = request.params as CommandExecutionRequestApprovalParams;
      const available = params.availableDecisions?.flatMap((decision) => (typeof decision === "string" ? [decision as string] : []));
      return approval(
        "Run this command?",
        [
          h("pre", { class: "command" }, params.command ?? "(command not given)"),
          params.cwd ? h("p", {}, `in ${params.cwd}`) : null,
          params.reason ? h("p", { class: "reason" }, params.reason) : null,
        ],
        (decision) => available === undefined || available.includes(decision),
        answer,
      );
    }
    case "item/fileChange/requestApproval": {
      const params = request.params as FileChangeRequestApprovalParams;
      return approval(
        "Apply this file change?",
        [params.reason ? h("p", { class: "reason" }, params.reason) : null, params.grantRoot ? h("p", {}, `grants writes under ${params.grantRoot}`) : null],
        () => true,
        answer,
      );
    }
    case "item/tool/requestUserInput": {
      const params = request.params as ToolRequestUserInputParams;
      const parts = params.questions.map((question, index) => ({
        id: question.id,
        ...choices(`${name}-${index}`, question.header ? `${question.header}: ${question.question}` : question.question, question.options ?? [], false, question.isOther, question.isSecret),
      }));
      const element: HTMLFormElement = questionnaire(
        "The agent asks",
        parts,
        () => {
          const answers: Record<string, { answers: string[] }> = {};
          for (const part of parts) answers[part.id] = { answers: part.selected() };
          answer({ answers });
          settle(element, "Answered");
        },
        () => {
          answer({ answers: {} });
          settle(element, "Skipped");
        },
      );
      return element;
    }
    case "tool/requestUserInput":
    case "agent/askUserQuestion": {
      const questions =
        request.method === "tool/requestUserInput"
          ? (request.params as UserInputRequestParams).questions.map((question) => ({ text: question.text, options: question.options, multiple: false, other: question.isOther }))
          : (request.params as AgentAskUserQuestionParams).questions.map((question) => ({
              text: question.text,
              options: question.options,
              multiple: question.type === "multi_choice",
              other: question.allowOther,
            }));
      const parts = questions.map((question, index) =>
        choices(`${name}-${index}`, question.text, question.options.map((label) => ({ label })), question.multiple, question.other),
      );
      const element: HTMLFormElement = questionnaire(
        "The agent asks",
        parts,
        () => {
          const answers: QuestionAnswer[] = parts.map((part, questionIndex) => ({ questionIndex, selected: part.selected() }));
          answer({ answers: answers.filter((entry) => entry.selected.length > 0) });
          settle(element, "Answered");
        },
        () => {
          answer({ answers: [] });
          settle(element, "Skipped");
        },
      );
      return element;
    }
    case "agent/requestUserInput": {
      const params = request.params as AgentRequestUserInputParams;
      const part = choices(name, params.prompt, [], false, true);
      const element: HTMLFormElement = questionnaire(
        "The agent asks",
        [part],
        () => {
          answer({ userInput: part.selected().join("\n") });
          settle(element, "Answered");
        },
        () => {
          answer({ userInput: "" });
          settle(element, "Skipped");
        },
      );
      return element;
    }
    case "mcpServer/elicitation/request": {
      const params = request.params as McpServerElicitationRequestParams;
      const element: HTMLFormElement = form(
        `${params.serverName} asks`,
        h("p", {}, "message" in params ? String(params.message) : ""),
        h(
          "div",
          { class: "actions" },
          ...(["accept", "decline", "cancel"] as const).map((action) =>
            button(action[0]?.toUpperCase() + action.slice(1), () => {
              answer({ action, content: action === "accept" ? {} : null, _meta: null });
              settle(element, `Answered: ${action}`);
            }),
          ),
        ),
      );
      return element;
    }
    default:
      return null;
  }
}
