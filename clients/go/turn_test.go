package tandem_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	tandem "example.invalid/tandem/clients/go"
	"example.invalid/tandem/clients/go/protocol"
)

func TestHandshakeAndCleanClose(t *testing.T) {
	client := spawn(t, newDemoHome(t))
	if ua := client.InitializeResponse.UserAgent; !strings.HasPrefix(ua, "tandem_client_tests/") {
		t.Errorf("userAgent %q does not start with the client name", ua)
	}
	if family := client.InitializeResponse.PlatformFamily; family != "unix" {
		t.Errorf("platformFamily %q", family)
	}
	if status := client.CloseWithin(5e9); status != (tandem.ExitStatus{Code: 0}) {
		t.Errorf("exit status %+v, want code 0", status)
	}
	// A closed client fails requests with reason "closed".
	_, err := client.ThreadList(context.Background(), protocol.ThreadListParams{})
	if ce, ok := err.(*tandem.ConnectionError); !ok || ce.Reason != "closed" {
		t.Errorf("request after close: %v, want a ConnectionError with reason closed", err)
	}
}

func TestStreamedTurnInOrder(t *testing.T) {
	home := newDemoHome(t)
	client := spawn(t, home)
	// The demo's tool stages ask for approvals; accepted, the turn runs straight through.
	accept(client)
	thread := startThread(t, client, home)
	viaOn := make(chan string, 1024)
	stop := client.On(protocol.MethodItemAgentMessageDelta, func(n tandem.Notification) {
		decoded, _ := n.Decode()
		viaOn <- decoded.(*protocol.ItemDeltaNotification).Delta
	})
	defer stop()

	seen, turn := runTurn(t, client, thread.ID, "Say hello", nil)

	if turn == nil || turn.Status != protocol.TurnStatusCompleted {
		t.Fatalf("turn %+v, want completed", turn)
	}
	names := strings.Split(methods(seen), ", ")
	index := func(method string) int {
		for i, name := range names {
			if name == method {
				return i
			}
		}
		return -1
	}
	if names[len(names)-1] != protocol.MethodTurnCompleted {
		t.Fatalf("last notification %s, want turn/completed", names[len(names)-1])
	}
	started, firstDelta := index(protocol.MethodTurnStarted), index(protocol.MethodItemAgentMessageDelta)
	if started < 0 || firstDelta < 0 || !(started < firstDelta) {
		t.Fatalf("want turn/started, then deltas, then turn/completed; got %s", methods(seen))
	}
	// The completed turn's final agentMessage is exactly what its deltas streamed.
	var final *protocol.ThreadItem
	for i := range turn.Items {
		if turn.Items[i].Type == "agentMessage" {
			final = &turn.Items[i]
		}
	}
	if final == nil || final.Text == nil || *final.Text == "" {
		t.Fatalf("turn/completed has no agentMessage: %+v", turn.Items)
	}
	var streamed strings.Builder
	for _, n := range seen {
		if n.Method == protocol.MethodItemAgentMessageDelta {
			decoded, err := n.Decode()
			if err != nil {
				t.Fatal(err)
			}
			if delta := decoded.(*protocol.ItemDeltaNotification); delta.ItemID == final.ID {
				streamed.WriteString(delta.Delta)
			}
		}
	}
	if streamed.String() != *final.Text {
		t.Errorf("streamed %q, final %q", streamed.String(), *final.Text)
	}
	// Every notification of the run belongs to this thread and turn.
	for _, n := range seen {
		decoded, err := n.Decode()
		if err != nil {
			t.Fatalf("decode %s: %v", n.Method, err)
		}
		if id, ok := threadOf(decoded); ok && id != thread.ID {
			t.Errorf("%s from thread %q", n.Method, id)
		}
	}
	// The same deltas reached the On handler (it runs on its own goroutine: read until complete).
	var heard strings.Builder
	for !strings.Contains(heard.String(), *final.Text) {
		heard.WriteString(<-viaOn)
	}
}

// threadOf is the threadId of a decoded notification, if its type is one this test lists.
func threadOf(params any) (string, bool) {
	switch p := params.(type) {
	case *protocol.TurnNotification:
		return p.ThreadID, true
	case *protocol.ItemStartedNotification:
		return p.ThreadID, true
	case *protocol.ItemCompletedNotification:
		return p.ThreadID, true
	case *protocol.ItemDeltaNotification:
		return p.ThreadID, true
	case *protocol.ThreadStatusChangedNotification:
		return p.ThreadID, true
	case *protocol.ServerRequestResolvedNotification:
		return p.ThreadID, true
	case *protocol.TurnPlanUpdatedNotification:
		return p.ThreadID, true
	case *protocol.ThreadTokenUsageUpdatedNotification:
		return p.ThreadID, true
	case *protocol.TurnDiffUpdatedNotification:
		return p.ThreadID, true
	}
	return "", false // a notification type this test does not list
}

func accept(client *tandem.Client) {
	client.OnCommandApproval(func(context.Context, *protocol.CommandExecutionRequestApprovalParams) (*protocol.CommandExecutionRequestApprovalResponse, error) {
		return tandem.CommandDecision(protocol.CommandExecutionApprovalDecisionAccept), nil
	})
	client.OnFileChangeApproval(func(context.Context, *protocol.FileChangeRequestApprovalParams) (*protocol.FileChangeRequestApprovalResponse, error) {
		return tandem.FileChangeDecision(protocol.FileChangeApprovalDecisionAccept), nil
	})
}

func TestApprovalsAccepted(t *testing.T) {
	home := newDemoHome(t)
	client := spawn(t, home)
	// Handlers run on goroutines of their own.
	var mu sync.Mutex
	var commands []*protocol.CommandExecutionRequestApprovalParams
	client.OnCommandApproval(func(_ context.Context, params *protocol.CommandExecutionRequestApprovalParams) (*protocol.CommandExecutionRequestApprovalResponse, error) {
		mu.Lock()
		defer mu.Unlock()
		commands = append(commands, params)
		return tandem.CommandDecision(protocol.CommandExecutionApprovalDecisionAccept), nil
	})
	client.OnFileChangeApproval(func(context.Context, *protocol.FileChangeRequestApprovalParams) (*protocol.FileChangeRequestApprovalResponse, error) {
		return tandem.FileChangeDecision(protocol.FileChangeApprovalDecisionAccept), nil
	})
	thread := startThread(t, client, home)

	seen, turn := runTurn(t, client, thread.ID, "Show me around", nil)

	mu.Lock()
	defer mu.Unlock()
	if turn.Status != protocol.TurnStatusCompleted {
		t.Fatalf("turn status %s", turn.Status)
	}
	if len(commands) != 1 || commands[0].Command == nil || !strings.Contains(*commands[0].Command, "uname -srm") {
		t.Fatalf("command approvals %+v, want one for uname -srm", commands)
	}
	if commands[0].ThreadID != thread.ID || commands[0].TurnID != turn.ID || commands[0].Cwd == nil || *commands[0].Cwd != home.workspace {
		t.Errorf("approval params %+v", commands[0])
	}
	ran := completedItems(t, seen, "commandExecution")
	if len(ran) != 1 || ran[0].Status == nil || *ran[0].Status != "completed" || ran[0].ExitCode == nil || *ran[0].ExitCode != 0 {
		t.Fatalf("command items %+v", ran)
	}
	if ran[0].AggregatedOutput == nil || !strings.HasPrefix(*ran[0].AggregatedOutput, "Linux ") {
		t.Errorf("command output %v", ran[0].AggregatedOutput)
	}
	if got := statuses(completedItems(t, seen, "fileChange")); strings.Join(got, ",") != "completed" {
		t.Errorf("file changes %v", got)
	}
	content, err := os.ReadFile(filepath.Join(home.workspace, "tandem-demo.txt"))
	if err != nil || string(content) != "Hello from the Tandem demo.\n" {
		t.Errorf("tandem-demo.txt: %q, %v", content, err)
	}
	if message := finalMessage(t, seen); !regexp.MustCompile(`the command printed “Linux .*”; I created tandem-demo\.txt`).MatchString(message) {
		t.Errorf("final message %q", message)
	}
}

func TestApprovalsDeclined(t *testing.T) {
	home := newDemoHome(t)
	client := spawn(t, home)
	client.OnCommandApproval(func(context.Context, *protocol.CommandExecutionRequestApprovalParams) (*protocol.CommandExecutionRequestApprovalResponse, error) {
		return tandem.CommandDecision(protocol.CommandExecutionApprovalDecisionDecline), nil
	})
	// The generated form, as every server request has one.
	client.HandleItemFileChangeRequestApproval(func(context.Context, *protocol.FileChangeRequestApprovalParams) (*protocol.FileChangeRequestApprovalResponse, error) {
		return tandem.FileChangeDecision(protocol.FileChangeApprovalDecisionDecline), nil
	})
	thread := startThread(t, client, home)

	seen, turn := runTurn(t, client, thread.ID, "Show me around", nil)

	if turn.Status != protocol.TurnStatusCompleted {
		t.Fatalf("turn status %s", turn.Status)
	}
	if got := statuses(completedItems(t, seen, "commandExecution")); strings.Join(got, ",") != "declined" {
		t.Errorf("command items %v, want declined", got)
	}
	if got := statuses(completedItems(t, seen, "fileChange")); strings.Join(got, ",") != "declined" {
		t.Errorf("file changes %v, want declined", got)
	}
	if _, err := os.Stat(filepath.Join(home.workspace, "tandem-demo.txt")); !os.IsNotExist(err) {
		t.Errorf("tandem-demo.txt exists after a declined patch (%v)", err)
	}
	if message := finalMessage(t, seen); !strings.Contains(message, "you declined the command; you declined the patch;") {
		t.Errorf("final message %q", message)
	}
}

func TestUnhandledServerRequestsAreAnsweredWithAnError(t *testing.T) {
	home := newDemoHome(t)
	client := spawn(t, home)
	// No handlers: each request is answered with a JSON-RPC error and the turn goes on.
	thread := startThread(t, client, home)

	seen, turn := runTurn(t, client, thread.ID, "Show me around", nil)

	if turn.Status != protocol.TurnStatusCompleted {
		t.Fatalf("turn status %s", turn.Status)
	}
	if got := statuses(completedItems(t, seen, "commandExecution")); strings.Join(got, ",") != "failed" {
		t.Errorf("command items %v, want failed", got)
	}
	if _, err := os.Stat(filepath.Join(home.workspace, "tandem-demo.txt")); !os.IsNotExist(err) {
		t.Errorf("tandem-demo.txt exists (%v)", err)
	}
}

func TestUserInputInPlanMode(t *testing.T) {
	home := newDemoHome(t)
	client := spawn(t, home, func(o *tandem.SpawnOptions) {
		o.Capabilities = &protocol.InitializeCapabilities{ExperimentalAPI: protocol.Ptr(true)}
	})
	accept(client)
	var mu sync.Mutex
	var asked []string
	client.OnUserInput(func(_ context.Context, params *protocol.ToolRequestUserInputParams) (*protocol.ToolRequestUserInputResponse, error) {
		mu.Lock()
		defer mu.Unlock()
		answers := map[string]protocol.ToolRequestUserInputAnswer{}
		for _, question := range params.Questions {
			asked = append(asked, question.ID+": "+question.Question)
			answers[question.ID] = protocol.ToolRequestUserInputAnswer{Answers: []string{"Explain"}}
		}
		return &protocol.ToolRequestUserInputResponse{Answers: answers}, nil
	})
	client.HandleAgentAskUserQuestion(func(_ context.Context, params *protocol.AgentAskUserQuestionParams) (*protocol.QuestionAnswersResponse, error) {
		response := &protocol.QuestionAnswersResponse{Answers: []protocol.QuestionAnswer{}}
		for i, question := range params.Questions {
			response.Answers = append(response.Answers, protocol.QuestionAnswer{QuestionIndex: int64(i), Selected: question.Options[:1]})
		}
		return response, nil
	})
	client.HandleAgentRequestUserInput(func(context.Context, *protocol.AgentRequestUserInputParams) (*protocol.AgentRequestUserInputResponse, error) {
		return &protocol.AgentRequestUserInputResponse{UserInput: "typed by the Go SDK"}, nil
	})
	thread := startThread(t, client, home)
	mode := &protocol.CollaborationMode{Mode: protocol.ModeKindPlan, Settings: protocol.CollaborationModeSettings{Model: "demo"}}

	seen, turn := runTurn(t, client, thread.ID, "Show me around", &protocol.TurnStartParams{CollaborationMode: mode})

	if turn.Status != protocol.TurnStatusCompleted {
		t.Fatalf("turn status %s", turn.Status)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(asked, "|") != "next_step: What should the demo do next?" {
		t.Errorf("questions %q", asked)
	}
	message := finalMessage(t, seen)
	for _, want := range []string{`you answered {"answers":{"next_step":{"answers":["Explain"]}}}`, "typed by the Go SDK"} {
		if !strings.Contains(message, want) {
			t.Errorf("final message %q lacks %q", message, want)
		}
	}
}

func TestHandlerErrorIsAnsweredWithAnError(t *testing.T) {
	home := newDemoHome(t)
	client := spawn(t, home)
	client.OnCommandApproval(func(context.Context, *protocol.CommandExecutionRequestApprovalParams) (*protocol.CommandExecutionRequestApprovalResponse, error) {
		return nil, errors.New("no terminal to ask")
	})
	client.OnFileChangeApproval(func(context.Context, *protocol.FileChangeRequestApprovalParams) (*protocol.FileChangeRequestApprovalResponse, error) {
		return tandem.FileChangeDecision(protocol.FileChangeApprovalDecisionAccept), nil
	})
	thread := startThread(t, client, home)

	seen, turn := runTurn(t, client, thread.ID, "Show me around", nil)

	if turn.Status != protocol.TurnStatusCompleted {
		t.Fatalf("turn status %s", turn.Status)
	}
	if got := statuses(completedItems(t, seen, "commandExecution")); strings.Join(got, ",") != "failed" {
		t.Errorf("command items %v, want failed", got)
	}
	if got := statuses(completedItems(t, seen, "fileChange")); strings.Join(got, ",") != "completed" {
		t.Errorf("file changes %v, want completed", got)
	}
}

func TestInterruptWhileAnApprovalIsPending(t *testing.T) {
	home := newDemoHome(t)
	client := spawn(t, home)
	thread := startThread(t, client, home)
	ctx := testContext(t)
	run, err := client.RunTurn(ctx, thread.ID, []protocol.UserInput{tandem.Text("Show me around")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Never answers by itself: the interrupt withdraws the request, which ends the handler's context.
	withdrawn := make(chan error, 1)
	client.OnCommandApproval(func(ctx context.Context, _ *protocol.CommandExecutionRequestApprovalParams) (*protocol.CommandExecutionRequestApprovalResponse, error) {
		if err := run.Interrupt(ctx); err != nil {
			return nil, err
		}
		<-ctx.Done()
		withdrawn <- ctx.Err()
		return nil, ctx.Err()
	})
	turn, err := run.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if turn.Status != protocol.TurnStatusInterrupted {
		t.Errorf("turn status %s, want interrupted", turn.Status)
	}
	if err := <-withdrawn; !errors.Is(err, context.Canceled) {
		t.Errorf("handler context ended with %v", err)
	}
	if _, err := os.Stat(filepath.Join(home.workspace, "tandem-demo.txt")); !os.IsNotExist(err) {
		t.Errorf("tandem-demo.txt exists (%v)", err)
	}
	// Interrupting a finished turn is a request-level error.
	var rpcErr *tandem.Error
	if err := run.Interrupt(ctx); !errors.As(err, &rpcErr) || rpcErr.Code != -32600 {
		t.Errorf("interrupt of a finished turn: %v", err)
	}
}
