// Approve from the terminal: run one turn under the `untrusted` approval policy and answer each
// command and file-change approval with y/n typed on stdin.
//
//	go run ./examples/approve [--demo] [--yes | --no] ["your request"]
//
// `--yes` / `--no` answer every approval without asking (for scripts and CI); answers can also be
// piped (`printf 'y\nn\n' | go run ./examples/approve --demo`). When stdin runs out, the answer
// is no.
package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"
	"sync"

	tandem "example.invalid/tandem/clients/go"
	"example.invalid/tandem/clients/go/protocol"
)

func main() {
	os.Exit(run())
}

// terminal asks y/n questions, one stdin line per question (handlers run on goroutines of their
// own, so the questions take turns).
type terminal struct {
	mu    sync.Mutex
	lines *bufio.Scanner
	fixed *bool
}

func (t *terminal) ask(question string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Printf("%s [y/n] ", question)
	if t.fixed != nil {
		if *t.fixed {
			fmt.Println("y (--yes)")
		} else {
			fmt.Println("n (--no)")
		}
		return *t.fixed
	}
	if !t.lines.Scan() {
		fmt.Println("(no input: n)")
		return false
	}
	answer := strings.ToLower(strings.TrimSpace(t.lines.Text()))
	fmt.Println(answer)
	return answer == "y" || answer == "yes"
}

// changedPaths maps a fileChange item to its paths, from its item/started (which the server sends
// before the approval request; handlers and On run on different goroutines, so a lookup waits).
type changedPaths struct {
	mu      sync.Mutex
	paths   map[string]string
	updated chan struct{}
}

func (c *changedPaths) add(id, paths string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.paths[id] = paths
	close(c.updated)
	c.updated = make(chan struct{})
}

func (c *changedPaths) get(ctx context.Context, id string) string {
	for {
		c.mu.Lock()
		paths, ok := c.paths[id]
		updated := c.updated
		c.mu.Unlock()
		if ok {
			return paths
		}
		select {
		case <-updated:
		case <-ctx.Done():
			return "(unknown files)"
		}
	}
}

func run() int {
	demo := false
	term := &terminal{lines: bufio.NewScanner(os.Stdin)}
	var words []string
	for _, arg := range os.Args[1:] {
		switch arg {
		case "--demo":
			demo = true
		case "--yes", "--no":
			yes := arg == "--yes"
			term.fixed = &yes
		default:
			words = append(words, arg)
		}
	}
	prompt := strings.Join(words, " ")
	if prompt == "" {
		prompt = "Show me what you can do"
	}
	options := tandem.SpawnOptions{Command: []string{serverBin(), "app-server"}}
	if demo {
		options.Args = []string{"-c", `model_provider="demo"`}
	}
	ctx := context.Background()
	client, err := tandem.Spawn(ctx, options)
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		return 1
	}
	defer client.Close()

	pending := &changedPaths{paths: map[string]string{}, updated: make(chan struct{})}
	stop := client.On(protocol.MethodItemStarted, func(n tandem.Notification) {
		params, err := n.Decode()
		if err != nil {
			return
		}
		if item := params.(*protocol.ItemStartedNotification).Item; item.Type == "fileChange" {
			var paths []string
			for _, change := range item.Changes {
				paths = append(paths, change.Kind.Type+" "+change.Path)
			}
			pending.add(item.ID, strings.Join(paths, ", "))
		}
	})
	defer stop()
	client.OnCommandApproval(func(_ context.Context, p *protocol.CommandExecutionRequestApprovalParams) (*protocol.CommandExecutionRequestApprovalResponse, error) {
		command, cwd := "(unknown command)", "?"
		if p.Command != nil {
			command = *p.Command
		}
		if p.Cwd != nil {
			cwd = *p.Cwd
		}
		decision := protocol.CommandExecutionApprovalDecisionDecline
		if term.ask(fmt.Sprintf("Run `%s` in %s?", command, cwd)) {
			decision = protocol.CommandExecutionApprovalDecisionAccept
		}
		return tandem.CommandDecision(decision), nil
	})
	client.OnFileChangeApproval(func(ctx context.Context, p *protocol.FileChangeRequestApprovalParams) (*protocol.FileChangeRequestApprovalResponse, error) {
		reason := ""
		if p.Reason != nil && *p.Reason != "" {
			reason = " (" + *p.Reason + ")"
		}
		decision := protocol.FileChangeApprovalDecisionDecline
		if term.ask(fmt.Sprintf("Apply the file change: %s%s?", pending.get(ctx, p.ItemID), reason)) {
			decision = protocol.FileChangeApprovalDecisionAccept
		}
		return tandem.FileChangeDecision(decision), nil
	})

	cwd, _ := os.Getwd()
	untrusted := protocol.AskForApproval{Name: protocol.AskForApprovalUntrusted}
	started, err := client.ThreadStart(ctx, protocol.ThreadStartParams{Cwd: &cwd, ApprovalPolicy: &untrusted})
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		return 1
	}
	turn, err := client.RunTurn(ctx, started.Thread.ID, []protocol.UserInput{tandem.Text(prompt)}, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		return 1
	}
	for turn.Next(ctx) {
		if turn.Notification().Method != protocol.MethodItemCompleted {
			continue
		}
		params, err := turn.Notification().Decode()
		if err != nil {
			continue
		}
		item := params.(*protocol.ItemCompletedNotification).Item
		status := ""
		if item.Status != nil {
			status = *item.Status
		}
		switch item.Type {
		case "agentMessage":
			if item.Text != nil {
				fmt.Println(*item.Text)
			}
		case "commandExecution":
			command := ""
			if item.Command != nil {
				command = *item.Command
			}
			fmt.Printf("[command %s] %s\n", status, command)
		case "fileChange":
			var paths []string
			for _, change := range item.Changes {
				paths = append(paths, change.Path)
			}
			fmt.Printf("[file change %s] %s\n", status, strings.Join(paths, ", "))
		}
	}
	if err := turn.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		return 1
	}
	fmt.Printf("[turn %s]\n", turn.Turn().Status)
	if turn.Turn().Status != protocol.TurnStatusCompleted {
		return 1
	}
	return 0
}

func serverBin() string {
	if bin := os.Getenv("TANDEM_BIN"); bin != "" {
		return bin
	}
	return "tandem"
}
