package tandem_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	tandem "example.invalid/tandem/clients/go"
	"example.invalid/tandem/clients/go/protocol"
)

// tandemBin is the server under test: $TANDEM_BIN, default ../../target/debug/tandem.
func tandemBin(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("TANDEM_BIN")
	if bin == "" {
		bin = "../../target/debug/tandem"
	}
	abs, err := filepath.Abs(bin)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(abs); err != nil {
		t.Fatalf("no server binary at %s (build it with `cargo build --bins` or set TANDEM_BIN): %v", abs, err)
	}
	return abs
}

// demoHome is a fresh TANDEM_HOME (demo provider, `untrusted` approvals) and an empty workspace.
type demoHome struct {
	home, workspace string
}

func newDemoHome(t *testing.T) demoHome {
	t.Helper()
	root := t.TempDir()
	h := demoHome{home: filepath.Join(root, "home"), workspace: filepath.Join(root, "workspace")}
	for _, dir := range []string{h.home, h.workspace} {
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	config := "model_provider = \"demo\"\napproval_policy = \"untrusted\"\n"
	if err := os.WriteFile(filepath.Join(h.home, "config.toml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	return h
}

// spawnOptions are the options of the real server on h.
func (h demoHome) spawnOptions(t *testing.T) tandem.SpawnOptions {
	options := tandem.SpawnOptions{
		Command: []string{tandemBin(t), "app-server"},
		Env:     map[string]string{"TANDEM_HOME": h.home},
		Dir:     h.workspace,
	}
	options.ClientInfo = &protocol.ClientInfo{Name: "tandem_client_tests", Version: "0.0.0"}
	// Server logs only when asked for, as in the Rust tests.
	if os.Getenv("TANDEM_TEST_LOG") != "" {
		options.Stderr = os.Stderr
	}
	return options
}

// spawn starts the real server on h; it is closed when the test ends (before the home is removed).
func spawn(t *testing.T, h demoHome, edit ...func(*tandem.SpawnOptions)) *tandem.Client {
	t.Helper()
	options := h.spawnOptions(t)
	for _, f := range edit {
		f(&options)
	}
	client, err := tandem.Spawn(testContext(t), options)
	if err != nil {
		t.Fatalf("spawn: %v", err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(client.Pid(), syscall.SIGCONT)
		client.CloseWithin(5 * time.Second)
	})
	return client
}

// testContext ends with the test, and after 30 s at most, so a hung wait fails instead of hanging.
func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// startThread starts a thread in h's workspace.
func startThread(t *testing.T, client *tandem.Client, h demoHome) protocol.Thread {
	t.Helper()
	started, err := client.ThreadStart(testContext(t), protocol.ThreadStartParams{Cwd: &h.workspace})
	if err != nil {
		t.Fatalf("thread/start: %v", err)
	}
	return started.Thread
}

// runTurn runs one turn with text to its end and returns its notifications and the turn.
func runTurn(t *testing.T, client *tandem.Client, threadID, text string, params *protocol.TurnStartParams) ([]tandem.Notification, *protocol.Turn) {
	t.Helper()
	ctx := testContext(t)
	run, err := client.RunTurn(ctx, threadID, []protocol.UserInput{tandem.Text(text)}, params)
	if err != nil {
		t.Fatalf("turn/start: %v", err)
	}
	var seen []tandem.Notification
	for run.Next(ctx) {
		seen = append(seen, run.Notification())
	}
	if err := run.Err(); err != nil {
		t.Fatalf("turn: %v (after %s)", err, methods(seen))
	}
	return seen, run.Turn()
}

func methods(notifications []tandem.Notification) string {
	names := make([]string, len(notifications))
	for i, n := range notifications {
		names[i] = n.Method
	}
	return strings.Join(names, ", ")
}

// completedItems are the final states of the items of type kind that the run completed.
func completedItems(t *testing.T, notifications []tandem.Notification, kind string) []protocol.ThreadItem {
	t.Helper()
	var items []protocol.ThreadItem
	for _, n := range notifications {
		if n.Method != protocol.MethodItemCompleted {
			continue
		}
		decoded, err := n.Decode()
		if err != nil {
			t.Fatalf("decode %s: %v", n.Method, err)
		}
		if item := decoded.(*protocol.ItemCompletedNotification).Item; item.Type == kind {
			items = append(items, item)
		}
	}
	return items
}

// finalMessage is the text of the run's last agent message.
func finalMessage(t *testing.T, notifications []tandem.Notification) string {
	t.Helper()
	messages := completedItems(t, notifications, "agentMessage")
	if len(messages) == 0 || messages[len(messages)-1].Text == nil {
		t.Fatalf("the turn has no agent message: %s", methods(notifications))
	}
	return *messages[len(messages)-1].Text
}

func statuses(items []protocol.ThreadItem) []string {
	out := []string{}
	for _, item := range items {
		if item.Status == nil {
			out = append(out, "(none)")
		} else {
			out = append(out, *item.Status)
		}
	}
	return out
}
