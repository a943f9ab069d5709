package tandem

import (
	"encoding/json"
	"fmt"
)

// Error is a JSON-RPC error reply to a request.
type Error struct {
	// Method is the request's method.
	Method string
	// Code is the JSON-RPC error code (-32600 for an invalid request, -32601 for an unknown
	// method, -32602 for invalid params, -32603 for an internal error).
	Code int64
	// Message is the server's description of the error.
	Message string
	// Data is the error's optional `data`, as sent.
	Data json.RawMessage
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s (code %d)", e.Method, e.Message, e.Code)
}

// ConnectionError reports that the connection to the server ended: every pending and later request
// fails with it.
type ConnectionError struct {
	// Reason is why: "exit" (the server exited), "eof" (its output ended while it still ran, or
	// the connection was not to a process), "closed" (Close was called), "malformed" (it wrote a
	// line that is not a JSON-RPC message), "spawn" (it could not be started) or "io" (reading or
	// writing failed).
	Reason string
	// Message describes the end: "server exited with code 1", "server exited on signal SIGKILL",
	// "malformed line from server: …".
	Message string
	// Exit is the server's exit status, when Reason is "exit".
	Exit *ExitStatus
	// Err is the underlying error, if any.
	Err error
}

func (e *ConnectionError) Error() string { return e.Message }

// Unwrap returns the underlying error.
func (e *ConnectionError) Unwrap() error { return e.Err }

// InvalidResponseError reports a result that does not decode into the method's response type.
type InvalidResponseError struct {
	// Method is the request's method.
	Method string
	// Err is the decoding error.
	Err error
}

func (e *InvalidResponseError) Error() string {
	return fmt.Sprintf("%s: invalid result from server: %v", e.Method, e.Err)
}

// Unwrap returns the decoding error.
func (e *InvalidResponseError) Unwrap() error { return e.Err }

// InvalidParamsError is what a typed server-request handler answers when the request's params
// do not decode into the method's params type (the server gets a -32602 error reply).
type InvalidParamsError struct {
	// Method is the server request's method.
	Method string
	// Err is the decoding error.
	Err error
}

func (e *InvalidParamsError) Error() string {
	return fmt.Sprintf("%s: invalid params: %v", e.Method, e.Err)
}

// Unwrap returns the decoding error.
func (e *InvalidParamsError) Unwrap() error { return e.Err }

// ExitStatus is how the server process ended.
type ExitStatus struct {
	// Code is the exit code, or -1 when the process was killed by a signal.
	Code int
	// Signal names the signal that killed the process ("SIGKILL"), or is empty.
	Signal string
}

func (s ExitStatus) String() string {
	if s.Signal != "" {
		return "server exited on signal " + s.Signal
	}
	return fmt.Sprintf("server exited with code %d", s.Code)
}
