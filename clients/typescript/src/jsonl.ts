// JSONL framing: one JSON value per `\n`-terminated line, UTF-8.

import { StringDecoder } from "node:string_decoder";

/**
 * Splits a byte stream into lines. Chunks may end anywhere, including inside a line or inside a
 * multi-byte UTF-8 character; a line is only emitted once its `\n` has arrived. A trailing `\r` is
 * dropped and empty lines are skipped.
 */
export class LineDecoder {
  private readonly decoder = new StringDecoder("utf8");
  private partial = "";

  /** Feeds one chunk and returns the lines it completed. */
  push(chunk: Buffer | string): string[] {
    const text = this.partial + (typeof chunk === "string" ? chunk : this.decoder.write(chunk));
    const parts = text.split("\n");
    // The last part has no `\n` after it yet: keep it for the next chunk.
    this.partial = parts.pop() ?? "";
    return parts.map(stripCarriageReturn).filter((line) => line.length > 0);
  }

  /** Ends the stream and returns the unterminated last line, if any. */
  end(): string[] {
    const rest = stripCarriageReturn(this.partial + this.decoder.end());
    this.partial = "";
    return rest.length > 0 ? [rest] : [];
  }
}

/** Serializes one message as a JSONL line (compact JSON plus `\n`). */
export function encodeLine(message: unknown): string {
  return `${JSON.stringify(message)}\n`;
}

function stripCarriageReturn(line: string): string {
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}
