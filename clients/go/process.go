package tandem

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"example.invalid/tandem/clients/go/protocol"
)

// SpawnOptions configures Spawn.
type SpawnOptions struct {
	Options
	// Command is the server command and its first arguments; default ["tandem", "app-server"].
	Command []string
	// Args are appended to Command (`-c`, `model_provider="demo"`…).
	Args []string
	// Env is merged over the current environment.
	Env map[string]string
	// Dir is the server's working directory; default the current one.
	Dir string
	// Stderr receives the server's stderr (its logs); nil discards it.
	Stderr io.Writer
}

// Spawn starts the server, runs the initialize handshake and returns the client. ctx bounds the
// start and the handshake, not the server's life (Close ends that). A command that cannot be
// started fails with a *ConnectionError whose Reason is "spawn"; a server that exits during the
// handshake with one whose Reason is "exit".
func Spawn(ctx context.Context, options SpawnOptions) (*Client, error) {
	command := options.Command
	if len(command) == 0 {
		command = []string{"tandem", "app-server"}
	}
	argv := append(append([]string{}, command...), options.Args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = options.Dir
	if len(options.Env) > 0 {
		env := os.Environ()
		for key, value := range options.Env {
			env = append(env, key+"="+value)
		}
		cmd.Env = env
	}
	cmd.Stderr = options.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, &ConnectionError{
			Reason:  "spawn",
			Message: fmt.Sprintf("failed to start server `%s`: %v", strings.Join(argv, " "), err),
			Err:     err,
		}
	}
	proc := &process{cmd: cmd, exited: make(chan struct{})}
	go proc.wait()
	c := newClient(stdin, proc)
	go c.read(stdout)
	if err := c.handshake(ctx, options.Options); err != nil {
		c.CloseWithin(time.Second)
		return nil, err
	}
	return c, nil
}

// process is a spawned server and its exit.
type process struct {
	cmd    *exec.Cmd
	exited chan struct{}
	status ExitStatus
}

func (p *process) wait() {
	_ = p.cmd.Wait()
	p.status = exitStatus(p.cmd.ProcessState)
	close(p.exited)
}

// waitBriefly waits a moment for the exit that usually follows the end of the server's output.
func (p *process) waitBriefly() (ExitStatus, bool) {
	timer := time.NewTimer(2 * time.Second)
	defer timer.Stop()
	select {
	case <-p.exited:
		return p.status, true
	case <-timer.C:
		return ExitStatus{}, false
	}
}

// stop waits grace for the exit, then kills the server.
func (p *process) stop(grace time.Duration) ExitStatus {
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-p.exited:
	case <-timer.C:
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
	return p.status
}

// Pid is the spawned server's process id (0 for Connect).
func (c *Client) Pid() int {
	if c.proc == nil {
		return 0
	}
	return c.proc.cmd.Process.Pid
}

// Exited is closed when a spawned server has exited (never, for Connect).
func (c *Client) Exited() <-chan struct{} {
	if c.proc == nil {
		return nil
	}
	return c.proc.exited
}

var signalNames = map[syscall.Signal]string{
	syscall.SIGKILL: "SIGKILL", syscall.SIGTERM: "SIGTERM", syscall.SIGINT: "SIGINT",
	syscall.SIGHUP: "SIGHUP", syscall.SIGABRT: "SIGABRT", syscall.SIGSEGV: "SIGSEGV",
	syscall.SIGPIPE: "SIGPIPE", syscall.SIGQUIT: "SIGQUIT",
}

func exitStatus(state *os.ProcessState) ExitStatus {
	if state == nil {
		return ExitStatus{Code: -1}
	}
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		name, ok := signalNames[ws.Signal()]
		if !ok {
			name = fmt.Sprintf("signal %d", int(ws.Signal()))
		}
		return ExitStatus{Code: -1, Signal: name}
	}
	return ExitStatus{Code: state.ExitCode()}
}

// Text is a text input for RunTurn.
func Text(text string) protocol.UserInput {
	return protocol.UserInput{Type: "text", Text: &text}
}
