// Ask and stream: start a thread, run one turn, print the answer as it streams.
//
//	go run ./examples/ask [--demo] "your question"
//
// The server is `$TANDEM_BIN app-server` (default `tandem` on PATH); `--demo` selects the offline
// scripted provider, so no model or network is needed.
package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	tandem "example.invalid/tandem/clients/go"
	"example.invalid/tandem/clients/go/protocol"
)

func main() {
	os.Exit(run())
}

func run() int {
	demo := false
	var words []string
	for _, arg := range os.Args[1:] {
		if arg == "--demo" {
			demo = true
		} else {
			words = append(words, arg)
		}
	}
	prompt := strings.Join(words, " ")
	if prompt == "" {
		prompt = "What can you do?"
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

	cwd, _ := os.Getwd()
	never := protocol.AskForApproval{Name: protocol.AskForApprovalNever}
	started, err := client.ThreadStart(ctx, protocol.ThreadStartParams{Cwd: &cwd, ApprovalPolicy: &never})
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
		params, err := turn.Notification().Decode()
		if err != nil {
			continue
		}
		switch p := params.(type) {
		case *protocol.ItemDeltaNotification:
			if turn.Notification().Method == protocol.MethodItemAgentMessageDelta {
				fmt.Print(p.Delta)
			}
		case *protocol.ItemCompletedNotification:
			if p.Item.Type == "agentMessage" {
				fmt.Println()
			}
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
