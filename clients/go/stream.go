package tandem

import (
	"context"
	"encoding/json"

	"example.invalid/tandem/clients/go/protocol"
)

// Stream is a subscription to the server's notifications (Client.Subscribe).
type Stream struct {
	client *Client
	q      *queue
}

// Next returns the next notification. It fails with the connection's *ConnectionError once the
// connection has ended and what arrived before was read, with ctx's error when ctx ends first,
// and with ErrStreamClosed after Close.
func (s *Stream) Next(ctx context.Context) (Notification, error) {
	n, ok, err := s.q.pop(ctx)
	if ok {
		return n, nil
	}
	if err == nil {
		err = ErrStreamClosed
	}
	return Notification{}, err
}

// Close stops the stream.
func (s *Stream) Close() { s.client.unsubscribe(s.q) }

// ErrStreamClosed is what Next returns after Close.
var ErrStreamClosed = &ConnectionError{Reason: "closed", Message: "stream closed"}

// TurnRun is one turn started by RunTurn. Iterate it like a bufio.Scanner:
//
//	for run.Next(ctx) {
//		n := run.Notification()
//		…
//	}
//	if err := run.Err(); err != nil { … }
//	turn := run.Turn() // the turn from turn/completed
type TurnRun struct {
	client   *Client
	stream   *Stream
	threadID string
	// Started is the turn as turn/start returned it.
	Started protocol.Turn

	current   Notification
	completed *protocol.Turn
	err       error
}

// RunTurn sends turn/start for threadID with input (params, if given, supplies the other fields)
// and returns the run once the server accepted it. The run yields the turn's notifications (those
// of threadID that name this turn or no turn) up to and including turn/completed.
func (c *Client) RunTurn(ctx context.Context, threadID string, input []protocol.UserInput, params *protocol.TurnStartParams) (*TurnRun, error) {
	p := protocol.TurnStartParams{}
	if params != nil {
		p = *params
	}
	p.ThreadID, p.Input = threadID, input
	// Subscribed first, so nothing the turn sends before the reply is missed.
	stream := c.Subscribe()
	response, err := c.TurnStart(ctx, p)
	if err != nil {
		stream.Close()
		return nil, err
	}
	return &TurnRun{client: c, stream: stream, threadID: threadID, Started: response.Turn}, nil
}

// turnScope is what RunTurn reads of every notification to decide whether it belongs to the turn.
type turnScope struct {
	ThreadID string `json:"threadId"`
	TurnID   string `json:"turnId"`
	Turn     *struct {
		ID string `json:"id"`
	} `json:"turn"`
}

// Next waits for the turn's next notification; it returns false after turn/completed, or when
// the connection or ctx ended (Err says which).
func (r *TurnRun) Next(ctx context.Context) bool {
	if r.completed != nil || r.err != nil {
		return false
	}
	for {
		n, err := r.stream.Next(ctx)
		if err != nil {
			r.err = err
			r.stream.Close()
			return false
		}
		var scope turnScope
		if json.Unmarshal(n.Params, &scope) != nil || scope.ThreadID != r.threadID {
			continue
		}
		if scope.TurnID != "" && scope.TurnID != r.Started.ID {
			continue
		}
		if scope.Turn != nil && scope.Turn.ID != r.Started.ID {
			continue
		}
		r.current = n
		if n.Method == protocol.MethodTurnCompleted {
			var done protocol.TurnNotification
			if err := json.Unmarshal(n.Params, &done); err != nil {
				r.err = &InvalidResponseError{Method: n.Method, Err: err}
				r.stream.Close()
				return false
			}
			r.completed = &done.Turn
			r.stream.Close()
		}
		return true
	}
}

// Notification is the notification the last successful Next returned.
func (r *TurnRun) Notification() Notification { return r.current }

// Err is why Next returned false before turn/completed (nil after it).
func (r *TurnRun) Err() error { return r.err }

// Turn is the turn from turn/completed (its final status and items), or nil before it.
func (r *TurnRun) Turn() *protocol.Turn { return r.completed }

// Wait reads the rest of the run and returns the completed turn.
func (r *TurnRun) Wait(ctx context.Context) (*protocol.Turn, error) {
	for r.Next(ctx) {
	}
	if r.err != nil {
		return nil, r.err
	}
	return r.completed, nil
}

// Interrupt sends turn/interrupt for this turn.
func (r *TurnRun) Interrupt(ctx context.Context) error {
	_, err := r.client.TurnInterrupt(ctx, protocol.TurnInterruptParams{ThreadID: r.threadID, TurnID: r.Started.ID})
	return err
}

// Close stops the run's subscription (needed only when the run is abandoned before its end).
func (r *TurnRun) Close() { r.stream.Close() }
