package tandem

import (
	"context"
	"sync"
)

// queue is an unbounded FIFO of notifications with one consumer. The reader never blocks on a
// slow consumer (a consumer may send requests whose replies the reader must deliver); what a
// queue holds is bounded by what the server sends before the consumer reads it.
type queue struct {
	mu     sync.Mutex
	items  []Notification
	signal chan struct{}
	err    error
	closed bool
}

func newQueue() *queue { return &queue{signal: make(chan struct{}, 1)} }

func (q *queue) push(n Notification) {
	q.mu.Lock()
	if !q.closed {
		q.items = append(q.items, n)
	}
	q.mu.Unlock()
	q.wake()
}

// close ends the queue after what it holds; pop then returns err (nil for a plain end).
func (q *queue) close(err error) {
	q.mu.Lock()
	if !q.closed {
		q.closed, q.err = true, err
	}
	q.mu.Unlock()
	q.wake()
}

func (q *queue) wake() {
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

// pop returns the next notification; ok is false when the queue ended (err says why) or ctx ended.
func (q *queue) pop(ctx context.Context) (n Notification, ok bool, err error) {
	for {
		q.mu.Lock()
		if len(q.items) > 0 {
			n = q.items[0]
			q.items[0] = Notification{}
			q.items = q.items[1:]
			q.mu.Unlock()
			return n, true, nil
		}
		if q.closed {
			err = q.err
			q.mu.Unlock()
			return Notification{}, false, err
		}
		q.mu.Unlock()
		select {
		case <-q.signal:
		case <-ctx.Done():
			return Notification{}, false, ctx.Err()
		}
	}
}
