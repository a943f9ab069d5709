// Package tandem is a client of Tandem's app-server protocol (the Codex app-server v2 protocol,
// JSON-RPC over JSON lines): it spawns `tandem app-server` (or attaches to a stream pair), does
// the initialize handshake, sends typed requests, streams notifications per turn and answers the
// server's requests with typed handlers. The protocol types are in the protocol package, generated
// from the committed JSON Schemas by scripts/generate.py.
package tandem

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"example.invalid/tandem/clients/go/protocol"
)

// Version is this package's version, sent in the default clientInfo.
const Version = "0.1.0"

// ClientName is the default clientInfo name.
const ClientName = "tandem-client-go"

// MaxLineBytes caps one line from the server; a longer line ends the connection as malformed.
const MaxLineBytes = 64 << 20

// Notification is a server notification: its method and raw params. Decode gives the typed params.
type Notification struct {
	// Method is the notification's method (protocol.MethodTurnCompleted…).
	Method string
	// Params are the notification's params as sent.
	Params json.RawMessage
}

// Decode returns the params decoded into a pointer to the method's generated type
// (*protocol.ItemDeltaNotification for item/agentMessage/delta); an unknown method's params come
// back as json.RawMessage.
func (n Notification) Decode() (any, error) { return protocol.DecodeNotification(n.Method, n.Params) }

// RawHandler answers a server request from its raw params; the result is marshalled as the reply.
type RawHandler func(ctx context.Context, params json.RawMessage) (any, error)

// Client is a connection to an app server. Its methods are safe for concurrent use.
type Client struct {
	// InitializeResponse is the server's answer to initialize.
	InitializeResponse protocol.InitializeResponse

	writer  io.WriteCloser
	writeMu sync.Mutex
	nextID  int64

	mu       sync.Mutex
	pending  map[int64]chan reply
	subs     map[*queue]struct{}
	handlers map[string]RawHandler
	inFlight map[string]context.CancelFunc // server requests being handled, by raw id
	err      *ConnectionError              // set once, when the connection ends

	done         chan struct{} // closed when the connection ended
	handleCtx    context.Context
	stopHandlers context.CancelFunc

	proc *process // nil for Connect
}

type reply struct {
	result json.RawMessage
	err    *Error
}

// message is any JSON-RPC message on the wire.
type message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data,omitempty"`
	} `json:"error,omitempty"`
}

// Options configures Connect (and, through SpawnOptions, Spawn).
type Options struct {
	// ClientInfo is sent in initialize; default {Name: ClientName, Version: Version}.
	ClientInfo *protocol.ClientInfo
	// Capabilities are sent in initialize (ExperimentalAPI opts into the experimental surface).
	Capabilities *protocol.InitializeCapabilities
}

// Connect runs the handshake with a server whose output is r and whose input is w, and returns
// the client. Closing the client closes w. ctx bounds the handshake only.
func Connect(ctx context.Context, r io.Reader, w io.WriteCloser, options Options) (*Client, error) {
	c := newClient(w, nil)
	go c.read(r)
	if err := c.handshake(ctx, options); err != nil {
		c.shutdown(&ConnectionError{Reason: "closed", Message: "handshake failed"})
		_ = w.Close()
		return nil, err
	}
	return c, nil
}

func newClient(w io.WriteCloser, proc *process) *Client {
	ctx, cancel := context.WithCancel(context.Background())
	return &Client{
		writer:       w,
		pending:      map[int64]chan reply{},
		subs:         map[*queue]struct{}{},
		handlers:     map[string]RawHandler{},
		inFlight:     map[string]context.CancelFunc{},
		done:         make(chan struct{}),
		handleCtx:    ctx,
		stopHandlers: cancel,
		proc:         proc,
	}
}

func (c *Client) handshake(ctx context.Context, options Options) error {
	info := protocol.ClientInfo{Name: ClientName, Version: Version}
	if options.ClientInfo != nil {
		info = *options.ClientInfo
	}
	params := protocol.InitializeParams{ClientInfo: info, Capabilities: options.Capabilities}
	if err := c.Call(ctx, protocol.MethodInitialize, params, &c.InitializeResponse); err != nil {
		return err
	}
	return c.Notify(protocol.MethodInitialized, struct{}{})
}

// Done is closed when the connection has ended; Err then says why.
func (c *Client) Done() <-chan struct{} { return c.done }

// Err is the *ConnectionError that ended the connection, or nil while it is open.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		return nil
	}
	return c.err
}

// Call sends a request and decodes its result into result (a pointer, or nil to drop it).
// It returns *Error for an error reply, *ConnectionError when the connection ends first, and
// ctx's error (wrapped, so errors.Is(err, context.Canceled) holds) when ctx ends first; a reply
// that arrives after that is dropped.
func (c *Client) Call(ctx context.Context, method string, params any, result any) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	id := atomic.AddInt64(&c.nextID, 1) - 1
	ch := make(chan reply, 1)
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return err
	}
	c.pending[id] = ch
	c.mu.Unlock()
	if params == nil {
		params = struct{}{}
	}
	if err := c.write(map[string]any{"id": id, "method": method, "params": params}); err != nil {
		c.forget(id)
		return err
	}
	select {
	case r := <-ch:
		if r.err != nil {
			r.err.Method = method
			return r.err
		}
		if result != nil {
			if err := json.Unmarshal(r.result, result); err != nil {
				return &InvalidResponseError{Method: method, Err: err}
			}
		}
		return nil
	case <-c.done:
		c.forget(id)
		select {
		case r := <-ch: // answered just before the end
			if r.err != nil {
				r.err.Method = method
				return r.err
			}
			if result != nil {
				if err := json.Unmarshal(r.result, result); err != nil {
					return &InvalidResponseError{Method: method, Err: err}
				}
			}
			return nil
		default:
		}
		return c.Err()
	case <-ctx.Done():
		c.forget(id)
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

func (c *Client) forget(id int64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// Notify sends a client notification.
func (c *Client) Notify(method string, params any) error {
	return c.write(map[string]any{"method": method, "params": params})
}

func (c *Client) write(msg any) error {
	line, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if err := c.Err(); err != nil {
		return err
	}
	if _, err := c.writer.Write(line); err != nil {
		// The server is gone (or going): report how it ended if that is known by now.
		if cerr := c.Err(); cerr != nil {
			return cerr
		}
		return &ConnectionError{Reason: "io", Message: "writing to server: " + err.Error(), Err: err}
	}
	return nil
}

// Subscribe returns a stream of every notification from the moment of the call, until the
// connection ends or the stream is closed.
func (c *Client) Subscribe() *Stream {
	q := newQueue()
	c.mu.Lock()
	if c.err != nil {
		q.close(c.err)
	} else {
		c.subs[q] = struct{}{}
	}
	c.mu.Unlock()
	return &Stream{client: c, q: q}
}

func (c *Client) unsubscribe(q *queue) {
	c.mu.Lock()
	delete(c.subs, q)
	c.mu.Unlock()
	q.close(nil)
}

// On calls handler for each notification of method (every method when method is ""), in order,
// on a goroutine of its own (so a handler may send requests). It returns a function that stops it.
func (c *Client) On(method string, handler func(Notification)) (stop func()) {
	stream := c.Subscribe()
	go func() {
		for {
			n, err := stream.Next(context.Background())
			if err != nil {
				return
			}
			if method == "" || n.Method == method {
				handler(n)
			}
		}
	}()
	return stream.Close
}

// HandleRaw registers the handler of the server requests of method, replacing any earlier one
// (nil removes it). The generated Handle… methods wrap it with the method's types. A request
// without a handler is answered with a -32601 error, and a handler's error with a -32603 one
// (-32602 for *InvalidParamsError), so a turn never waits for an answer that will not come.
// Handlers run on goroutines of their own; ctx ends when the server withdraws the request
// (serverRequest/resolved before the answer) or the connection ends.
func (c *Client) HandleRaw(method string, handler RawHandler) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if handler == nil {
		delete(c.handlers, method)
	} else {
		c.handlers[method] = handler
	}
}

// read is the reader goroutine: one JSON-RPC message per line.
func (c *Client) read(r io.Reader) {
	reader := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := readLine(reader)
		if err != nil {
			c.ended(err)
			return
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var msg message
		if json.Unmarshal(line, &msg) != nil || (msg.Method == "" && msg.ID == nil) {
			c.malformed(line)
			return
		}
		switch {
		case msg.Method != "" && msg.ID != nil:
			c.serverRequest(msg)
		case msg.Method != "":
			c.notification(Notification{Method: msg.Method, Params: msg.Params})
		default:
			c.response(msg)
		}
	}
}

var errLineTooLong = errors.New("line too long")

func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > MaxLineBytes {
			return nil, errLineTooLong
		}
		line = append(line, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF && len(line) > 0 {
			return line, nil
		}
		return line, err
	}
}

func (c *Client) malformed(line []byte) {
	shown := string(line)
	if len(shown) > 200 {
		shown = shown[:200] + "…"
	}
	c.shutdown(&ConnectionError{Reason: "malformed", Message: "malformed line from server: " + shown})
	_ = c.writer.Close()
}

func (c *Client) response(msg message) {
	id, err := strconv.ParseInt(string(msg.ID), 10, 64)
	if err != nil {
		return // not one of ours
	}
	c.mu.Lock()
	ch, ok := c.pending[id]
	delete(c.pending, id)
	c.mu.Unlock()
	if !ok {
		return // abandoned (its context ended)
	}
	if msg.Error != nil {
		ch <- reply{err: &Error{Code: msg.Error.Code, Message: msg.Error.Message, Data: msg.Error.Data}}
	} else {
		ch <- reply{result: msg.Result}
	}
}

func (c *Client) notification(n Notification) {
	if n.Method == protocol.MethodServerRequestResolved {
		var resolved struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(n.Params, &resolved) == nil {
			c.mu.Lock()
			cancel := c.inFlight[string(resolved.RequestID)]
			c.mu.Unlock()
			if cancel != nil {
				cancel()
			}
		}
	}
	c.mu.Lock()
	for q := range c.subs {
		q.push(n)
	}
	c.mu.Unlock()
}

func (c *Client) serverRequest(msg message) {
	key := string(msg.ID)
	c.mu.Lock()
	handler := c.handlers[msg.Method]
	ctx, cancel := context.WithCancel(c.handleCtx)
	c.inFlight[key] = cancel
	c.mu.Unlock()
	go func() {
		defer func() {
			c.mu.Lock()
			delete(c.inFlight, key)
			c.mu.Unlock()
			cancel()
		}()
		if handler == nil {
			c.replyError(msg.ID, -32601, "no handler for server request "+msg.Method)
			return
		}
		result, err := handler(ctx, msg.Params)
		var invalid *InvalidParamsError
		switch {
		case errors.As(err, &invalid):
			c.replyError(msg.ID, -32602, err.Error())
		case err != nil:
			c.replyError(msg.ID, -32603, err.Error())
		default:
			_ = c.write(map[string]any{"id": msg.ID, "result": result})
		}
	}()
}

func (c *Client) replyError(id json.RawMessage, code int64, text string) {
	_ = c.write(map[string]any{"id": id, "error": map[string]any{"code": code, "message": text}})
}

// ended handles the end of the server's output.
func (c *Client) ended(readErr error) {
	if readErr == errLineTooLong {
		c.shutdown(&ConnectionError{Reason: "malformed", Message: fmt.Sprintf("malformed line from server: longer than %d bytes", MaxLineBytes)})
		_ = c.writer.Close()
		return
	}
	if c.proc != nil {
		if status, ok := c.proc.waitBriefly(); ok {
			c.shutdown(&ConnectionError{Reason: "exit", Message: status.String(), Exit: &status})
			return
		}
	}
	if readErr != io.EOF {
		c.shutdown(&ConnectionError{Reason: "io", Message: "reading from server: " + readErr.Error(), Err: readErr})
		return
	}
	c.shutdown(&ConnectionError{Reason: "eof", Message: "server closed the connection"})
}

// shutdown ends the connection with err (the first end wins): pending requests, streams and
// handlers all stop.
func (c *Client) shutdown(err *ConnectionError) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = err
	subs := c.subs
	c.subs = map[*queue]struct{}{}
	c.mu.Unlock()
	close(c.done)
	c.stopHandlers()
	for q := range subs {
		q.close(err)
	}
}

// Close ends the connection and waits for a spawned server to exit, killing it after 3 s
// (CloseWithin with the default grace). It implements io.Closer and returns nil.
func (c *Client) Close() error {
	c.CloseWithin(3 * time.Second)
	return nil
}

// CloseWithin ends the connection: pending requests fail with a *ConnectionError whose Reason is
// "closed", the server's stdin is closed, and a spawned server is waited for and sent SIGKILL if
// it has not exited after grace. It returns the spawned server's exit status (Code 0 for a clean
// exit; the zero ExitStatus for Connect). Calling it again returns the same status.
func (c *Client) CloseWithin(grace time.Duration) ExitStatus {
	c.shutdown(&ConnectionError{Reason: "closed", Message: "client closed"})
	c.writeMu.Lock()
	_ = c.writer.Close()
	c.writeMu.Unlock()
	if c.proc == nil {
		return ExitStatus{}
	}
	return c.proc.stop(grace)
}
