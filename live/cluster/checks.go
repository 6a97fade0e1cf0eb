package cluster

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// ErrPortInUse marks a fixed port that something else holds.
var ErrPortInUse = errors.New("port in use")

// ErrToolMissing marks a missing or unusable java or mvn.
var ErrToolMissing = errors.New("tool missing")

// kindError is a message that errors.Is matches against a sentinel.
type kindError struct {
	kind error
	msg  string
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return e.kind }

func errorOf(kind error, format string, args ...any) error {
	return &kindError{kind, fmt.Sprintf(format, args...)}
}

const javaHint = "install a JDK 17 (apt-get install openjdk-17-jdk-headless) or put it on PATH"
const mvnHint = "install Maven (apt-get install maven) or put it on PATH; it is only needed while the jars are not cached"

// checkJava finds java on PATH and checks that it is Java 17 or newer
// (Kafka 4's broker needs 17). It answers within 10 s.
func checkJava(ctx context.Context) (string, error) {
	path, _, err := checkJavaVersion(ctx)
	return path, err
}

// checkJavaVersion is checkJava that also returns the `java -version`
// output (it keys the class-data-sharing archives).
func checkJavaVersion(ctx context.Context) (string, string, error) {
	path, err := exec.LookPath("java")
	if err != nil {
		return "", "", errorOf(ErrToolMissing, "java not found: %s", javaHint)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "-version").CombinedOutput()
	if err != nil {
		return "", "", errorOf(ErrToolMissing, "%s -version failed (%v): %s", path, err, javaHint)
	}
	major, ok := javaMajor(string(out))
	if !ok {
		return "", "", errorOf(ErrToolMissing, "cannot read the version of %s from %q: %s", path, firstLine(string(out)), javaHint)
	}
	if major < 17 {
		return "", "", errorOf(ErrToolMissing, "%s is Java %d, Flink 2 and Kafka 4 need 17 or newer: %s", path, major, javaHint)
	}
	return path, string(out), nil
}

var javaVersion = regexp.MustCompile(`version "([0-9]+)(?:\.([0-9]+))?`)

// javaMajor reads the major version from `java -version` output
// ("1.8.0_392" → 8, "17.0.15" → 17, "21" → 21).
func javaMajor(out string) (int, bool) {
	m := javaVersion.FindStringSubmatch(out)
	if m == nil {
		return 0, false
	}
	major, _ := strconv.Atoi(m[1])
	if major == 1 && m[2] != "" {
		major, _ = strconv.Atoi(m[2])
	}
	return major, true
}

func checkMaven() (string, error) {
	path, err := exec.LookPath("mvn")
	if err != nil {
		return "", errorOf(ErrToolMissing, "mvn not found: %s", mvnHint)
	}
	return path, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// checkPorts fails on the first fixed port that cannot be bound on
// 127.0.0.1, naming the process that holds it when /proc tells.
func checkPorts(p Ports) error { return checkPortList(p.list()) }

func checkPortList(ports []port) error {
	var errs []error
	for _, q := range ports {
		if err := portFree(q.num); err != nil {
			errs = append(errs, errorOf(ErrPortInUse, "port %d (%s) is in use (by %s?): stop it or pass %s",
				q.num, q.name, portOwner(q.num), q.flag))
		}
	}
	return errors.Join(errs...)
}

func portFree(port int) error {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return err
	}
	return l.Close()
}

// portOwner names the listener of a TCP port from /proc/net/tcp{,6} and
// /proc/*/fd ("java pid 1234"), or "another process".
func portOwner(port int) string {
	inodes := map[string]bool{}
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		for _, ino := range listenInodes(f, port) {
			inodes[ino] = true
		}
	}
	if len(inodes) == 0 {
		return "another process"
	}
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		fds, _ := os.ReadDir(filepath.Join(p, "fd"))
		for _, fd := range fds {
			link, err := os.Readlink(filepath.Join(p, "fd", fd.Name()))
			if err != nil || !strings.HasPrefix(link, "socket:[") {
				continue
			}
			if inodes[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")] {
				pid := filepath.Base(p)
				comm, _ := os.ReadFile(filepath.Join(p, "comm"))
				name := strings.TrimSpace(string(comm))
				if name == "" {
					name = "process"
				}
				return name + " pid " + pid
			}
		}
	}
	return "another process"
}

// listenInodes returns the socket inodes of LISTEN entries on port in a
// /proc/net/tcp-format file.
func listenInodes(file string, port int) []string {
	f, err := os.Open(file)
	if err != nil {
		return nil
	}
	defer f.Close()
	return parseListenInodes(bufio.NewScanner(f), port)
}

func parseListenInodes(sc *bufio.Scanner, port int) []string {
	var out []string
	want := fmt.Sprintf(":%04X", port)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
		if len(fields) < 10 || fields[3] != "0A" { // 0A = TCP_LISTEN
			continue
		}
		if strings.HasSuffix(fields[1], want) {
			out = append(out, fields[9])
		}
	}
	return out
}

// waitPortsFree waits until every fixed port can be bound again.
func waitPortsFree(ctx context.Context, p []port, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		err := checkPortList(p)
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}
