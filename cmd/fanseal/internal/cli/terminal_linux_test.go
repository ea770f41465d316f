package cli

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/fanseal/fanseal/cmd/fanseal/internal/report"
)

// openPTY returns the terminal end of a new pseudo-terminal.
func openPTY(t *testing.T) *os.File {
	t.Helper()
	_, tty := openPTYPair(t)
	return tty
}

// openPTYPair returns both ends of a new pseudo-terminal: the master, which
// reads what is written to the terminal, and the terminal.
func openPTYPair(t *testing.T) (master, tty *os.File) {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	t.Cleanup(func() { ptmx.Close() })
	var unlock, n int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, ptmx.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Skipf("unlockpt: %v", e)
	}
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, ptmx.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Skipf("ptsname: %v", e)
	}
	tty, err = os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open the terminal: %v", err)
	}
	t.Cleanup(func() { tty.Close() })
	return ptmx, tty
}

// TestTerminalDetection: a terminal is refused a binary envelope, while
// /dev/null, a character device too, is not.
func TestTerminalDetection(t *testing.T) {
	_, _, pubs := setup(t, "x25519", 1)
	tty := openPTY(t)
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if !report.IsTerminal(tty) || report.IsTerminal(null) {
		t.Fatalf("isTerminal: pty %v, /dev/null %v", report.IsTerminal(tty), report.IsTerminal(null))
	}
	var stderr strings.Builder
	if status := run([]string{"encrypt", "-r", pubs[0]}, strings.NewReader("x"), tty, &stderr); status != 1 || !strings.Contains(stderr.String(), "terminal") {
		t.Fatalf("encrypt to a terminal: status %d, %q", status, stderr.String())
	}
	stderr.Reset()
	if status := run([]string{"encrypt", "-r", pubs[0]}, strings.NewReader("x"), null, &stderr); status != 0 {
		t.Fatalf("encrypt to /dev/null: status %d, %q", status, stderr.String())
	}
}

// onTerminal runs the built command (in-process with -short) with its
// standard output on a new pseudo-terminal, and returns its exit status,
// what reached the terminal and its standard error.
func onTerminal(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	return withTerminal(t, stdin, false, args...)
}

// withTerminal runs the command as onTerminal does, with its standard
// output on the terminal, or with stderrOnTerminal its standard error
// (then the last string returned is its standard output).
func withTerminal(t *testing.T, stdin string, stderrOnTerminal bool, args ...string) (int, string, string) {
	t.Helper()
	master, tty := openPTYPair(t)
	screen := readScreen(master, tty)
	var status int
	var stderr strings.Builder
	var stdout, errOut io.Writer = tty, &stderr
	if stderrOnTerminal {
		stdout, errOut = &stderr, tty
	}
	if testing.Short() {
		status = run(args, strings.NewReader(stdin), stdout, errOut)
	} else {
		cmd := commandFor(t, binary(t), args...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(stdin), stdout, errOut
		err := cmd.Run()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatal(err)
		}
		status = cmd.ProcessState.ExitCode()
	}
	return status, screen(), stderr.String()
}

// readScreen starts reading what is written to the terminal tty, whose
// master end is master, and returns a function to call once the command
// is done: it lets the terminal's output drain, closes the terminal so
// that the reader ends, and returns all that was written.
func readScreen(master, tty *os.File) func() string {
	var screen strings.Builder
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			screen.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	return func() string {
		time.Sleep(100 * time.Millisecond)
		tty.Close()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			master.Close()
			<-done
		}
		return screen.String()
	}
}

// TestDecryptToTerminal: decrypt prints text on a terminal, refuses a
// payload that is not text with age's words and prints none of it, and
// prints it anyway with -o -.
func TestDecryptToTerminal(t *testing.T) {
	_, keys, pubs := setup(t, "x25519", 1)
	text := mustRun(t, "a note for the screen\n", "encrypt", "-r", pubs[0])
	binaryPayload := "\x7fELF\x02\x01\x01\x00 binary \xff\xfe payload \x1b[2J"
	bin := mustRun(t, binaryPayload, "encrypt", "-r", pubs[0])
	escape := mustRun(t, "innocent\x1b]0;owned\x07", "encrypt", "-r", pubs[0])

	status, screen, stderr := onTerminal(t, text, "decrypt", "-i", keys[0])
	if status != 0 || !strings.Contains(screen, "a note for the screen") {
		t.Fatalf("text to a terminal: status %d, screen %q, stderr %q", status, screen, stderr)
	}
	for name, env := range map[string]string{"binary": bin, "escape sequence": escape} {
		status, screen, stderr = onTerminal(t, env, "decrypt", "-i", keys[0])
		if status != 1 || !strings.Contains(stderr, "fanseal: error: refusing to output binary to the terminal") || !strings.Contains(stderr, "-o -") {
			t.Fatalf("%s to a terminal: status %d, stderr %q", name, status, stderr)
		}
		if strings.Contains(screen, "binary") || strings.Contains(screen, "owned") || strings.Contains(screen, "innocent") {
			t.Fatalf("%s to a terminal: the screen shows %q", name, screen)
		}
	}
	status, screen, stderr = onTerminal(t, bin, "decrypt", "-i", keys[0], "-o", "-")
	if status != 0 || !strings.Contains(screen, "binary") {
		t.Fatalf("-o - to a terminal: status %d, screen %q, stderr %q", status, screen, stderr)
	}
	// A multi-byte character split across writes is still text.
	var out strings.Builder
	g := &textGuard{w: &out}
	for _, part := range []string{"caf", "\xc3", "\xa9 \xe2\x82", "\xac"} {
		if _, err := g.Write([]byte(part)); err != nil {
			t.Fatalf("write %q: %v", part, err)
		}
	}
	if err := g.Close(); err != nil || out.String() != "café €" {
		t.Fatalf("split characters: %q, %v", out.String(), err)
	}
	g = &textGuard{w: &out}
	g.Write([]byte("cut \xe2\x82"))
	if err := g.Close(); !errors.Is(err, errBinaryToTerminal) {
		t.Fatalf("a payload ending inside a character: %v", err)
	}
}

// TestBenchProgressAndLegends runs fanseal bench with a terminal on
// standard error: its progress bar counts to the number of cells the
// report says it measured and reaches it, and every table of the report
// has a legend and the summary names its baselines.
func TestBenchProgressAndLegends(t *testing.T) {
	if testing.Short() {
		t.Skip("bench takes a few seconds")
	}
	svg := filepath.Join(t.TempDir(), "bench.svg")
	status, screen, stdout := withTerminal(t, "", true, "bench", "--quick", "--recipients", "3", "--plot", svg)
	if status != 0 {
		t.Fatalf("bench: status %d\n%s", status, stdout)
	}
	m := regexp.MustCompile(`\n(\d+) cells in `).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("bench does not say how many cells it measured:\n%s", stdout)
	}
	draws := regexp.MustCompile(`\] (\d+)/(\d+)`).FindAllStringSubmatch(screen, -1)
	if len(draws) == 0 {
		t.Fatalf("no progress bar on the terminal: %q", screen)
	}
	last := draws[len(draws)-1]
	if last[1] != m[1] || last[2] != m[1] {
		t.Fatalf("the bar ends at %s/%s; the report holds %s cells", last[1], last[2], m[1])
	}
	tables := strings.Count(stdout, "\nseal a 32-byte key") + strings.Count(stdout, "\nopen as the last") + 6
	if n := strings.Count(stdout, "\nlegend: "); n != tables {
		t.Errorf("%d legend lines for %d tables", n, tables)
	}
	for _, want := range []string{"cell: one configuration", "channel: ", "precomputed: ", "cache hit: ", "cpu/seal", "getrusage",
		"like for like (the same work and guarantees as the baseline)", "over sequential (a fresh ephemeral key", "not like for like"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	// The plot: a panel per suite, each with its title, labelled axes and
	// readable ticks (recipient counts, microseconds).
	checkPanels(t, svg, 4, "seal a 32-byte key, suite ", regexp.MustCompile(`^[0-9.]+$`), 2, "recipients", "seal p50 (µs)")
}

// TestBenchOnOneTerminal runs fanseal bench with its standard output and
// error on one terminal 100 columns wide, as a person runs it: no line of
// the screen starts with the progress bar but the bar's own, and every
// legend fits the width.
func TestBenchOnOneTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("bench takes a few seconds")
	}
	master, tty := openPTYPair(t)
	if err := unix.IoctlSetWinsize(int(tty.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Col: 100, Row: 40}); err != nil {
		t.Skipf("set the terminal's size: %v", err)
	}
	screen := readScreen(master, tty)
	cmd := commandFor(t, binary(t), "bench", "--quick", "--recipients", "0")
	cmd.Stdout, cmd.Stderr = tty, tty
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	shown := screen()
	legends := 0
	for _, line := range strings.Split(shown, "\n") {
		// What the line shows: what follows its last carriage return,
		// less the erase-line sequence.
		line = strings.TrimSuffix(line, "\r")
		if i := strings.LastIndexByte(line, '\r'); i >= 0 {
			line = line[i+1:]
		}
		line = strings.ReplaceAll(line, "\033[K", "")
		if strings.HasPrefix(line, "[#") || strings.HasPrefix(line, "[.") {
			if !regexp.MustCompile(`^\[[#.]+\] \d+/\d+$`).MatchString(line) {
				t.Errorf("a line starts with the progress bar: %q", line)
			}
			continue
		}
		if strings.HasPrefix(line, "legend: ") {
			legends++
		}
		if strings.HasPrefix(line, "legend: ") || strings.HasPrefix(line, "        ") {
			if n := utf8.RuneCountInString(line); n > 100 {
				t.Errorf("a legend line of %d columns on a terminal of 100: %q", n, line)
			}
		}
	}
	if legends < 4 {
		t.Fatalf("%d legends on the screen:\n%s", legends, shown)
	}
}

// promptPattern matches a passphrase prompt: "Enter passphrase:",
// "Confirm passphrase:", "Enter passphrase (leave empty to autogenerate a
// secure one):".
var promptPattern = regexp.MustCompile(`passphrase( \([^)]*\))?:`)

// onControllingTerminal runs cmd on a new pseudo-terminal, its
// controlling terminal and its standard input (and its standard output
// and error where cmd leaves them nil), and types each of answers, in
// turn, when the next prompt ending in "passphrase:" appears there; a
// command that ends without asking is not answered. It returns the
// command's error and all that the terminal showed.
func onControllingTerminal(t *testing.T, cmd *exec.Cmd, answers ...string) (error, string) {
	t.Helper()
	master, tty := openPTYPair(t)
	cmd.Stdin = tty
	if cmd.Stdout == nil {
		cmd.Stdout = tty
	}
	if cmd.Stderr == nil {
		cmd.Stderr = tty
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	var mu sync.Mutex
	var screen strings.Builder
	shown := func() string {
		mu.Lock()
		defer mu.Unlock()
		return screen.String()
	}
	go func() {
		buf := make([]byte, 1024)
		for {
			n, err := master.Read(buf)
			mu.Lock()
			screen.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.After(60 * time.Second)
	prompted := map[int]time.Time{} // when the prompt for each answer was first seen
	for typed := 0; ; {
		select {
		case err := <-done:
			time.Sleep(50 * time.Millisecond) // the terminal's last output
			return err, shown()
		case <-deadline:
			cmd.Process.Kill()
			<-done
			t.Fatalf("%v did not end; the terminal showed %q", cmd.Args, shown())
		case <-time.After(20 * time.Millisecond):
		}
		if typed < len(answers) && len(promptPattern.FindAllStringIndex(shown(), -1)) > typed {
			if _, ok := prompted[typed]; !ok {
				prompted[typed] = time.Now()
			}
			// The prompt comes before the program turns echo off: type
			// once it has (or, after a while, anyway, for an echo test to
			// see).
			if tio, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS); err == nil && tio.Lflag&unix.ECHO != 0 && time.Since(prompted[typed]) < 5*time.Second {
				continue
			}
			master.Write([]byte(answers[typed] + "\r"))
			typed++
		}
	}
}
