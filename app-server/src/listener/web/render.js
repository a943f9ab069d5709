// GENERATED from clients/web/src by clients/web/scripts/build.mjs; do not edit.
// How the page draws a thread's items: the agent's text as light markdown, reasoning folded,
// plans as checklists, commands with their output, file changes as diffs.
//
// Everything a server sends is text: it is put into the page with `textContent` and DOM nodes,
// never parsed as HTML.
/** Creates an element with attributes (`class`, `aria-*`, …) and children. */
export function h(tag, attributes = {}, ...children) {
    const element = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes))
        element.setAttribute(name, value);
    for (const child of children) {
        if (child === null || child === undefined || child === false)
            continue;
        element.append(child);
    }
    return element;
}
/** Inline markdown: `code`, **bold**, *emphasis* and [links](https://…). */
function inline(text) {
    const nodes = [];
    const pattern = /`([^`]+)`|\*\*([^*]+)\*\*|\*([^*\s][^*]*)\*|\[([^\]]+)\]\((https?:\/\/[^)\s]+)\)/g;
    let last = 0;
    for (const match of text.matchAll(pattern)) {
        const index = match.index ?? 0;
        if (index > last)
            nodes.push(document.createTextNode(text.slice(last, index)));
        if (match[1] !== undefined)
            nodes.push(h("code", {}, match[1]));
        else if (match[2] !== undefined)
            nodes.push(h("strong", {}, match[2]));
        else if (match[3] !== undefined)
            nodes.push(h("em", {}, match[3]));
        else if (match[4] !== undefined && match[5] !== undefined) {
            nodes.push(h("a", { href: match[5], rel: "noopener noreferrer", target: "_blank" }, match[4]));
        }
        last = index + match[0].length;
    }
    if (last < text.length)
        nodes.push(document.createTextNode(text.slice(last)));
    return nodes;
}
/** Block markdown: fenced code, headings, lists, quotes and paragraphs. */
export function markdown(text) {
    const fragment = document.createDocumentFragment();
    const lines = text.split("\n");
    let paragraph = [];
    let list = null;
    const flush = () => {
        if (paragraph.length > 0)
            fragment.append(h("p", {}, ...inline(paragraph.join(" "))));
        paragraph = [];
        list = null;
    };
    for (let index = 0; index < lines.length; index++) {
        const line = lines[index] ?? "";
        const fence = /^```(\S*)/.exec(line);
        if (fence) {
            flush();
            const code = [];
            for (index++; index < lines.length && !(lines[index] ?? "").startsWith("```"); index++)
                code.push(lines[index] ?? "");
            fragment.append(h("pre", {}, h("code", fence[1] ? { "data-language": fence[1] } : {}, code.join("\n"))));
            continue;
        }
        const heading = /^(#{1,6})\s+(.*)$/.exec(line);
        const item = /^\s*(?:[-*+]|(\d+)[.)])\s+(.*)$/.exec(line);
        if (heading) {
            flush();
            // The thread's headings sit under the page's h1/h2.
            const level = Math.min(6, (heading[1] ?? "#").length + 2);
            fragment.append(h(`h${level}`, {}, ...inline(heading[2] ?? "")));
        }
        else if (item) {
            if (paragraph.length > 0)
                flush();
            const ordered = item[1] !== undefined;
            if (list === null || (list.tagName === "OL") !== ordered) {
                list = h(ordered ? "ol" : "ul");
                fragment.append(list);
            }
            list.append(h("li", {}, ...inline(item[2] ?? "")));
        }
        else if (line.startsWith(">")) {
            flush();
            fragment.append(h("blockquote", {}, ...inline(line.replace(/^>\s?/, ""))));
        }
        else if (line.trim() === "") {
            flush();
        }
        else {
            if (list !== null)
                list = null;
            paragraph.push(line.trim());
        }
    }
    flush();
    return fragment;
}
/**
 * A file change's diff with added, removed and hunk lines marked: a unified diff for an update, the
 * whole content for an added (`add`) or deleted (`delete`) file, as the protocol sends them.
 */
export function diff(text, change = "update") {
    const pre = h("pre", { class: "diff" });
    const lines = text.endsWith("\n") ? text.slice(0, -1).split("\n") : text.split("\n");
    for (const line of lines) {
        if (change !== "update") {
            const sign = change === "add" ? "+" : "-";
            pre.append(h("span", { class: `line ${change === "add" ? "add" : "del"}` }, `${sign}${line}\n`));
            continue;
        }
        let kind = "context";
        if (line.startsWith("+++") || line.startsWith("---"))
            kind = "file";
        else if (line.startsWith("+"))
            kind = "add";
        else if (line.startsWith("-"))
            kind = "del";
        else if (line.startsWith("@@"))
            kind = "hunk";
        pre.append(h("span", { class: `line ${kind}` }, `${line}\n`));
    }
    return pre;
}
const STEP_MARK = { completed: "✓", inProgress: "▸", pending: "○" };
/** A plan as a checklist. */
export function plan(steps, explanation) {
    return h("section", { class: "item plan", "aria-label": "Plan" }, h("h3", {}, "Plan"), explanation ? h("p", {}, explanation) : null, h("ol", {}, ...steps.map((step) => h("li", { class: `step ${step.status}` }, h("span", { class: "mark", "aria-hidden": "true" }, STEP_MARK[step.status] ?? "·"), " ", step.step, h("span", { class: "visually-hidden" }, ` (${step.status})`)))));
}
/** The element of one item, drawn from its current state. */
export function item(value) {
    switch (value.type) {
        case "userMessage": {
            const text = value.content.map((input) => (input.type === "text" ? input.text : `[${input.type}]`)).join("\n");
            return h("section", { class: "item user", "aria-label": "You" }, h("p", { class: "who" }, "You"), h("div", { class: "text" }, text));
        }
        case "agentMessage":
            return h("section", { class: "item agent", "aria-label": "Agent" }, h("p", { class: "who" }, "Agent"), h("div", { class: "text markdown" }, markdown(value.text)));
        case "reasoning": {
            const text = [...value.summary, ...value.content].join("\n\n");
            return h("details", { class: "item reasoning" }, h("summary", {}, "Reasoning"), h("div", { class: "text markdown" }, markdown(text)));
        }
        case "plan":
            return h("section", { class: "item plan-text", "aria-label": "Proposed plan" }, h("h3", {}, "Proposed plan"), markdown(value.text));
        case "commandExecution":
            return h("section", { class: `item command ${value.status}`, "aria-label": "Command" }, h("p", { class: "head" }, h("span", { class: "label" }, "$ "), h("code", {}, value.command)), h("p", { class: "status" }, commandStatus(value)), h("pre", { class: "output", "aria-label": "Output", tabindex: "0" }, value.aggregatedOutput ?? ""));
        case "fileChange":
            return h("section", { class: `item file-change ${value.status}`, "aria-label": "File change" }, h("p", { class: "status" }, `File change: ${value.status}`), ...value.changes.map((change) => h("div", { class: "change" }, h("p", { class: "path" }, `${change.kind.type} ${change.path}`), diff(change.diff, change.kind.type))));
        case "mcpToolCall":
            return h("section", { class: "item tool" }, h("p", {}, `MCP tool ${value.server}/${value.tool}: ${value.status}`));
        case "dynamicToolCall":
            return h("section", { class: "item tool" }, h("p", {}, `Tool ${value.tool}: ${value.status}`));
        case "imageView":
            return h("section", { class: "item tool" }, h("p", {}, `Viewed image ${value.path}`));
        case "contextCompaction":
            return h("section", { class: "item note" }, h("p", {}, "The conversation was compacted."));
        case "hookPrompt":
            return h("section", { class: "item note" }, h("p", {}, value.fragments.map((fragment) => JSON.stringify(fragment)).join("\n")));
        case "enteredReviewMode":
            return h("section", { class: "item note" }, h("p", {}, `Code review: ${value.review}`));
        case "exitedReviewMode":
            // The findings follow as the agent's message; the note only closes the review.
            return h("section", { class: "item note" }, h("p", {}, "Code review finished."));
    }
}
function commandStatus(value) {
    const parts = [value.status];
    if (value.exitCode !== null)
        parts.push(`exit code ${value.exitCode}`);
    if (value.durationMs !== null)
        parts.push(`${value.durationMs} ms`);
    return parts.join(", ");
}
