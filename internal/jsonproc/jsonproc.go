package jsonproc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// stderrKeep is how much of the process's standard error an error quotes.
const stderrKeep = 4 << 10

// Process is one running child. Its methods are for one goroutine.
type Process struct {
	argv    []string
	stdin   io.WriteCloser
	cmd     *exec.Cmd
	lines   chan line     // stdout, line by line; closed after the exit
	exited  chan struct{} // closed when the process has been waited for
	exitErr error         // its exit status, valid once exited is closed
	stderr  *tail
	timer   *time.Timer
}

type line struct {
	data []byte
	err  error // a read error other than EOF
}

// Start runs argv in dir (empty: the current directory), with env
// (NAME=value) added to streamtwin's environment: a name in env replaces
// the inherited value. argv[0] with a slash is relative to dir; a bare
// name is looked up in streamtwin's PATH, whatever env says.
func Start(argv []string, dir string, env []string) (*Process, error) {
	if len(argv) == 0 || argv[0] == "" {
		return nil, errors.New("no command")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...) // the last value of a name wins
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = time.Second
	p := &Process{argv: argv, cmd: cmd, stderr: &tail{}}
	cmd.Stderr = p.stderr
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		where := ""
		if dir != "" {
			where = " in " + dir
		}
		return nil, fmt.Errorf("%s%s: start: %w", p.Argv(), where, err)
	}
	p.lines, p.exited = make(chan line, 1), make(chan struct{})
	p.timer = time.NewTimer(time.Hour)
	p.timer.Stop()
	go func() {
		r := bufio.NewReaderSize(stdout, 64<<10)
		for {
			data, err := r.ReadBytes('\n')
			if len(data) > 0 && err == nil {
				p.lines <- line{data: data}
				continue
			}
			if err != nil && !errors.Is(err, io.EOF) {
				p.lines <- line{err: err}
			}
			break
		}
		p.exitErr = cmd.Wait()
		close(p.exited)
		close(p.lines)
	}()
	return p, nil
}

// Argv is the command, for messages: [python3 my_policy.py].
func (p *Process) Argv() string { return "[" + strings.Join(p.argv, " ") + "]" }

// Send writes one message (a line ending in \n); an error means the process
// no longer reads (Gone tells why).
func (p *Process) Send(msg []byte) error {
	_, err := p.stdin.Write(msg)
	return err
}

// Receive waits up to d for the next line. at says when, for messages
// ("at tick 3 (t=30s)"); the error names the process, what happened and
// the end of its stderr.
func (p *Process) Receive(d time.Duration, at string) ([]byte, error) {
	p.timer.Reset(d)
	defer p.timer.Stop()
	select {
	case l, ok := <-p.lines:
		switch {
		case !ok:
			return nil, p.Gone(at, nil)
		case l.err != nil:
			return nil, fmt.Errorf("%s: reading its reply %s: %w", p.Argv(), at, l.err)
		}
		return l.data, nil
	case <-p.timer.C:
		return nil, fmt.Errorf("%s did not reply %s within %v%s", p.Argv(), at, d, p.StderrTail())
	}
}

// Gone describes a process that stopped serving (err: what failed, if
// anything besides its exit).
func (p *Process) Gone(at string, err error) error {
	select {
	case <-p.exited:
	case <-time.After(time.Second):
	}
	status := "closed its output"
	select {
	case <-p.exited:
		status = "exited"
		if p.exitErr != nil {
			status = "exited (" + p.exitErr.Error() + ")"
		}
	default:
		if err != nil {
			status = "stopped reading (" + err.Error() + ")"
		}
	}
	return fmt.Errorf("%s %s %s before replying%s", p.Argv(), status, at, p.StderrTail())
}

// Close sends the goodbye message (nil: none), closes the process's input,
// waits up to d for it to exit and kills it then.
func (p *Process) Close(goodbye []byte, d time.Duration) {
	select {
	case <-p.exited:
		return
	default:
	}
	if goodbye != nil {
		_ = p.Send(goodbye)
	}
	_ = p.stdin.Close()
	p.timer.Reset(d)
	select {
	case <-p.exited:
	case <-p.timer.C:
		p.Kill()
	}
}

// Kill stops the process group now and reaps it.
func (p *Process) Kill() {
	select {
	case <-p.exited:
		return
	default:
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	_ = p.stdin.Close()
	<-p.exited
}

// StderrTail is "; its stderr ends:\n…", or "" when it wrote nothing.
func (p *Process) StderrTail() string {
	s := strings.TrimSpace(p.stderr.String())
	if s == "" {
		return ""
	}
	return "; its stderr ends:\n" + s
}

// Quote is a line as an error shows it: trimmed, at most 200 bytes, quoted.
func Quote(data []byte) string {
	s := strings.TrimRight(string(data), "\r\n")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return strconv.Quote(s)
}

// tail keeps the last stderrKeep bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > stderrKeep {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-stderrKeep:]...)
	}
	return len(b), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// Decode reads one message line strictly: a misspelt field is an error,
// not a silent default, and so is a second JSON value on the line.
func Decode(data []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return errors.New("more than one JSON value on the line")
	}
	return nil
}
