package tandem_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	tandem "example.invalid/tandem/clients/go"
	"example.invalid/tandem/clients/go/protocol"
)

func TestErrorReplyIsATypedError(t *testing.T) {
	client := spawn(t, newDemoHome(t))
	ctx := testContext(t)
	_, err := client.ThreadRead(ctx, protocol.ThreadReadParams{ThreadID: "nope"})
	var rpcErr *tandem.Error
	if !errors.As(err, &rpcErr) {
		t.Fatalf("thread/read of an invalid id: %v (%T), want *tandem.Error", err, err)
	}
	if rpcErr.Code != -32600 || !strings.HasPrefix(rpcErr.Message, "invalid thread id") || rpcErr.Method != "thread/read" {
		t.Errorf("error %+v", rpcErr)
	}
	// The connection stays usable after an error reply.
	loaded, err := client.ThreadLoadedList(ctx, protocol.ThreadLoadedListParams{})
	if err != nil || len(loaded.Data) != 0 {
		t.Errorf("thread/loaded/list after an error: %+v, %v", loaded, err)
	}
}

func TestContextEndsARequest(t *testing.T) {
	client := spawn(t, newDemoHome(t))
	// A stopped server reads nothing and answers nothing until it is continued.
	if err := syscall.Kill(client.Pid(), syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	timeout, cancelTimeout := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancelTimeout()
	_, err := client.ThreadLoadedList(timeout, protocol.ThreadLoadedListParams{})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.HasPrefix(err.Error(), "thread/loaded/list: ") {
		t.Errorf("request past its deadline: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	failed := make(chan error, 1)
	go func() {
		_, err := client.ThreadLoadedList(ctx, protocol.ThreadLoadedListParams{})
		failed <- err
	}()
	cancel()
	if err := <-failed; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled request: %v", err)
	}
	// Continued, the server answers the abandoned requests; those replies are dropped and the next
	// request gets its own reply.
	if err := syscall.Kill(client.Pid(), syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if _, err := client.ModelList(testContext(t), protocol.ModelListParams{}); err != nil {
		t.Fatalf("model/list after the cancellations: %v", err)
	}
	loaded, err := client.ThreadLoadedList(testContext(t), protocol.ThreadLoadedListParams{})
	if err != nil || len(loaded.Data) != 0 {
		t.Errorf("thread/loaded/list: %+v, %v", loaded, err)
	}
}

func TestServerKilledMidRequest(t *testing.T) {
	client := spawn(t, newDemoHome(t))
	stream := client.Subscribe()
	// Stopped first, so the request is certainly still pending when the kill lands.
	if err := syscall.Kill(client.Pid(), syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	failed := make(chan error, 1)
	go func() {
		_, err := client.ThreadList(testContext(t), protocol.ThreadListParams{})
		failed <- err
	}()
	if err := syscall.Kill(client.Pid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := <-failed
	var connErr *tandem.ConnectionError
	if !errors.As(err, &connErr) || connErr.Reason != "exit" || connErr.Error() != "server exited on signal SIGKILL" {
		t.Fatalf("pending request: %v (%T), want the ConnectionError \"server exited on signal SIGKILL\"", err, err)
	}
	if connErr.Exit == nil || *connErr.Exit != (tandem.ExitStatus{Code: -1, Signal: "SIGKILL"}) {
		t.Errorf("exit %+v", connErr.Exit)
	}
	<-client.Done()
	// Later requests fail the same way, and so does the notification stream.
	if _, err := client.ThreadList(testContext(t), protocol.ThreadListParams{}); !errors.As(err, &connErr) || connErr.Reason != "exit" {
		t.Errorf("later request: %v", err)
	}
	if _, err := stream.Next(testContext(t)); !errors.As(err, &connErr) || connErr.Message != "server exited on signal SIGKILL" {
		t.Errorf("stream after the exit: %v", err)
	}
}

func TestServerExitingDuringHandshake(t *testing.T) {
	home := newDemoHome(t)
	options := home.spawnOptions(t)
	options.Args = []string{"--no-such-flag"}
	_, err := tandem.Spawn(testContext(t), options)
	var connErr *tandem.ConnectionError
	if !errors.As(err, &connErr) || connErr.Reason != "exit" || connErr.Message != "server exited with code 2" {
		t.Fatalf("spawn with a bad flag: %v, want the ConnectionError \"server exited with code 2\"", err)
	}
}

func TestCommandThatCannotStart(t *testing.T) {
	home := newDemoHome(t)
	options := home.spawnOptions(t)
	options.Command = []string{tandemBin(t) + "-does-not-exist", "app-server"}
	_, err := tandem.Spawn(testContext(t), options)
	var connErr *tandem.ConnectionError
	if !errors.As(err, &connErr) || connErr.Reason != "spawn" || !strings.HasPrefix(connErr.Message, "failed to start server `") {
		t.Fatalf("spawn of a missing command: %v", err)
	}
	if !errors.Is(err, exec.ErrNotFound) && !strings.Contains(err.Error(), "no such file") {
		t.Errorf("the cause is not named: %v", err)
	}
}

func TestMalformedLineEndsTheConnection(t *testing.T) {
	home := newDemoHome(t)
	// The real server, except that its second reply (to the first request after the handshake) is
	// replaced by a line of garbage, so that request is certainly pending when it arrives.
	script := `"$0" app-server | { IFS= read -r first; printf "%s\n" "$first"; IFS= read -r second; echo "this is not json"; cat; }`
	client := spawn(t, home, func(o *tandem.SpawnOptions) { o.Command = []string{"sh", "-c", script, tandemBin(t)} })
	_, err := client.ThreadLoadedList(testContext(t), protocol.ThreadLoadedListParams{})
	var connErr *tandem.ConnectionError
	if !errors.As(err, &connErr) || connErr.Reason != "malformed" || connErr.Message != "malformed line from server: this is not json" {
		t.Fatalf("request answered with garbage: %v", err)
	}
}

func TestCloseKillsAServerThatDoesNotExit(t *testing.T) {
	client := spawn(t, newDemoHome(t))
	if err := syscall.Kill(client.Pid(), syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	status := client.CloseWithin(200 * time.Millisecond)
	if status != (tandem.ExitStatus{Code: -1, Signal: "SIGKILL"}) {
		t.Errorf("exit status %+v, want SIGKILL", status)
	}
	if elapsed := time.Since(started); elapsed < 150*time.Millisecond {
		t.Errorf("killed after %s, before the grace period ended", elapsed)
	}
}

func TestConnectToAServerStartedElsewhere(t *testing.T) {
	home := newDemoHome(t)
	cmd := exec.Command(tandemBin(t), "app-server")
	cmd.Env = append(os.Environ(), "TANDEM_HOME="+home.home)
	cmd.Dir = home.workspace
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	client, err := tandem.Connect(testContext(t), stdout, stdin, tandem.Options{ClientInfo: &protocol.ClientInfo{Name: "attached", Version: "1.0.0"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(client.InitializeResponse.UserAgent, "attached/") {
		t.Errorf("userAgent %q", client.InitializeResponse.UserAgent)
	}
	thread := startThread(t, client, home)
	if thread.Cwd != home.workspace {
		t.Errorf("thread cwd %q", thread.Cwd)
	}
	_ = client.Close()
}

func TestDecisionJSON(t *testing.T) {
	plain, _ := json.Marshal(tandem.CommandDecision(protocol.CommandExecutionApprovalDecisionDecline))
	if string(plain) != `{"decision":"decline"}` {
		t.Errorf("plain decision: %s", plain)
	}
	amended := protocol.CommandExecutionApprovalDecision{AcceptWithExecpolicyAmendment: &protocol.CommandExecutionApprovalDecisionAcceptWithExecpolicyAmendment{ExecpolicyAmendment: []string{"ls"}}}
	data, _ := json.Marshal(amended)
	if string(data) != `{"acceptWithExecpolicyAmendment":{"execpolicy_amendment":["ls"]}}` {
		t.Errorf("object decision: %s", data)
	}
	var back protocol.CommandExecutionApprovalDecision
	if err := json.Unmarshal([]byte(`"acceptForSession"`), &back); err != nil || back.Name != protocol.CommandExecutionApprovalDecisionAcceptForSession {
		t.Errorf("decoded %+v, %v", back, err)
	}
	if err := json.Unmarshal(data, &back); err != nil || back.Name != "" || back.AcceptWithExecpolicyAmendment == nil {
		t.Errorf("decoded %+v, %v", back, err)
	}
}

func TestGeneratedFilesAreFresh(t *testing.T) {
	out, err := exec.Command("python3", "scripts/generate.py", "--check").CombinedOutput()
	if err != nil {
		t.Fatalf("generated bindings are stale (run python3 clients/go/scripts/generate.py): %v\n%s", err, out)
	}
}
