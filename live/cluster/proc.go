package cluster

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Process is one JVM of the cluster as recorded in pids.json.
type Process struct {
	Name    string    `json:"name"` // "kafka", "jobmanager", "tm-1", …
	PID     int       `json:"pid"`  // also its process group id; 0 = not running
	Args    []string  `json:"args"` // argv, to start it again
	Log     string    `json:"log"`  // stdout+stderr
	Started time.Time `json:"started"`
	// CDSDump is where this JVM writes its AppCDS archive at exit
	// (-XX:ArchiveClassesAtExit); Down moves it to CDSArchive after a clean
	// exit. Empty when it uses an archive or none.
	CDSDump    string `json:"cdsDump,omitempty"`
	CDSArchive string `json:"cdsArchive,omitempty"`
	// Marker is the argument of Args that identifies the process as this
	// cluster's when it is not the JVMs' -Dstreamtwin.live=<Dir>/<Name>
	// (Prometheus and node-exporter take no -D: an argument naming a file
	// in Dir).
	Marker string `json:"marker,omitempty"`
}

// State is the content of pids.json.
type State struct {
	Dir   string `json:"dir"`
	Flink string `json:"flinkVersion"`
	Kafka string `json:"kafkaVersion"`
	Ports Ports  `json:"ports"`
	// PrometheusPorts: with live up --prometheus only
	PrometheusPorts PrometheusPorts `json:"prometheusPorts,omitzero"`
	TaskManagers    int             `json:"taskManagers"`
	// TaskManagerCPU is each TaskManager's CPU limit in cores (0: none)
	TaskManagerCPU float64   `json:"taskManagerCPU,omitempty"`
	Slots          int       `json:"slots"`
	Processes      []Process `json:"processes"` // kafka, jobmanager, tm-1 … tm-N
	Created        time.Time `json:"created"`
	// ReadOnly are the folders a checkpoint_storage fault made read-only
	// (bind mounts), which Writable and Down undo.
	ReadOnly []string `json:"readOnly,omitempty"`
}

func readState(path string) (State, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return State{}, err
	}
	var s State
	if err := json.Unmarshal(b, &s); err != nil {
		return State{}, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

func writeState(path string, s State) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

const (
	sigterm = syscall.SIGTERM
	sigkill = syscall.SIGKILL
)

// marker is a system property put on every JVM's command line, so that a
// PID from pids.json is only trusted while /proc/<pid>/cmdline carries it
// (PIDs are reused).
func marker(dir, name string) string {
	return "-Dstreamtwin.live=" + filepath.Join(dir, name)
}

// start runs argv in dir, in its own process group, with stdout and stderr
// going to logPath (truncated, or appended to when appendLog). The child is reaped by
// a goroutine of this process, so a killed child does not linger as a
// zombie; it outlives this process otherwise.
func start(argv []string, dir, logPath string, appendLog bool, env []string) (int, error) {
	flags := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
	if appendLog {
		flags = os.O_CREATE | os.O_WRONLY | os.O_APPEND
	}
	f, err := os.OpenFile(logPath, flags, 0o644)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if appendLog {
		fmt.Fprintf(f, "\n===== streamtwin live: started again at %s =====\n", time.Now().Format(time.RFC3339))
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.Env, cmd.Dir = env, dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	go func() { _ = cmd.Wait() }()
	return cmd.Process.Pid, nil
}

// alive tells whether pid runs, is not a zombie and carries mark on its
// command line.
func alive(pid int, mark string) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	if stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		// pid (comm) S …: the state follows the last ')'
		if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) && (stat[i+2] == 'Z' || stat[i+2] == 'X') {
			return false
		}
	}
	if mark == "" {
		return true
	}
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	// A process still in execve has no command line yet: the parent of a
	// vfork'd child (os.StartProcess) resumes once the child's new memory
	// is in place, before the kernel sets the new arguments up. Read again
	// for a moment before calling it gone.
	for tries := 0; err == nil && len(cmdline) == 0 && tries < 20; tries++ {
		time.Sleep(10 * time.Millisecond)
		cmdline, err = os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	}
	if err != nil {
		return false
	}
	for _, a := range bytes.Split(cmdline, []byte{0}) {
		if string(a) == mark {
			return true
		}
	}
	return false
}

// signalGroup signals the process group of pid (== pid, see start), and pid
// itself should the group be gone.
func signalGroup(pid int, sig syscall.Signal) {
	if pid <= 0 {
		return // kill(0) and kill(-1) would signal our own group or everyone
	}
	if err := syscall.Kill(-pid, sig); err != nil {
		_ = syscall.Kill(pid, sig)
	}
}

// waitDead polls until none of the pids is alive or the timeout passes; it
// returns the survivors.
func waitDead(procs map[int]string, timeout time.Duration) map[int]string {
	deadline := time.Now().Add(timeout)
	for {
		left := map[int]string{}
		for pid, mark := range procs {
			if alive(pid, mark) {
				left[pid] = mark
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		procs = left
		time.Sleep(50 * time.Millisecond)
	}
}

// rssKiB is VmRSS of pid from /proc, 0 if unknown.
func rssKiB(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				n, _ := strconv.ParseInt(f[0], 10, 64)
				return n
			}
		}
	}
	return 0
}

// cpuTime is user+system CPU time of pid from /proc/<pid>/stat.
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	// after "pid (comm)": state(0) … utime(11) stime(12), in clock ticks
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	const ticks = 100 // USER_HZ on Linux
	return time.Duration(u+s) * time.Second / ticks
}

// logTail returns the last n lines of a log file (for errors).
func logTail(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	defer f.Close()
	const max = 64 << 10
	if fi, err := f.Stat(); err == nil && fi.Size() > max {
		_, _ = f.Seek(fi.Size()-max, io.SeekStart)
	}
	b, _ := io.ReadAll(f)
	return tail(string(b), n)
}
