package cli

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// A build is a program of fanseal's built once, with some go build flags,
// for the tests that run it as a separate process: the fanseal command,
// with the measuring programs (tools) built the same way beside it.
type build struct {
	pkg   string
	flags []string
	tools map[string]*build // bench and sim, for a build of fanseal

	once sync.Once
	path string
	err  error
}

// newBuild returns the build of fanseal, and of its tools, with flags.
func newBuild(flags ...string) *build {
	const cmd = "github.com/fanseal/fanseal/cmd/fanseal"
	b := &build{pkg: cmd, flags: flags, tools: map[string]*build{}}
	for name, path := range tools {
		b.tools[name] = &build{pkg: cmd + strings.TrimPrefix(path, "./cmd/fanseal"), flags: flags}
	}
	return b
}

var (
	built      = newBuild()
	builtNamed = newBuild("-ldflags", "-X github.com/fanseal/fanseal/cmd/fanseal/internal/cli.unnamedOff=1") // named temporary files only
)

// selfExec reports, once, whether this test binary can run itself: built
// for an architecture the kernel does not run (GOARCH=arm64 under
// qemu-user, without binfmt_misc), neither it nor any program the tests
// build can run as a process.
var selfExec = sync.OnceValue(func() bool {
	err := exec.Command(os.Args[0], "-test.run=^$").Run()
	return !errors.Is(err, syscall.ENOEXEC)
})

// requireExec skips a test that runs programs of its own where this
// architecture's programs cannot run as processes.
func requireExec(t *testing.T) {
	t.Helper()
	if !selfExec() {
		t.Skip("programs built for this architecture cannot run as processes here (an emulated architecture without binfmt_misc)")
	}
}

// binary builds the fanseal command once and returns its path.
func binary(t *testing.T) string { return built.get(t) }

func (b *build) get(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the command")
	}
	requireExec(t)
	b.once.Do(func() {
		dir, err := os.MkdirTemp("", "fanseal-bin")
		if err != nil {
			b.err = err
			return
		}
		b.path = filepath.Join(dir, filepath.Base(b.pkg))
		out, err := exec.Command("go", append(append([]string{"build", "-o", b.path}, b.flags...), b.pkg)...).CombinedOutput()
		if err != nil {
			b.err = err
			t.Logf("%s", out)
		}
	})
	if b.err != nil {
		t.Skipf("cannot build the command: %v", b.err)
	}
	return b.path
}

// remove removes the build's binary, if it was built.
func (b *build) remove() {
	if b.path != "" {
		os.RemoveAll(filepath.Dir(b.path))
	}
}

// program returns what runs args when bin, a built fanseal, is asked to:
// bin itself, or for "bench ..." and "sim ..." the tool built beside it
// (go run ./cmd/fanseal/bench), with the arguments it takes.
func program(t *testing.T, bin string, args []string) (string, []string) {
	t.Helper()
	for _, b := range []*build{built, builtNamed} {
		if b.path == bin && len(args) > 0 && b.tools[args[0]] != nil {
			return b.tools[args[0]].get(t), args[1:]
		}
	}
	return bin, args
}

// execCLI runs the built command as a separate process, or in-process
// with -short (which does not build it), and returns its exit status,
// standard output and standard error.
func execCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	if testing.Short() {
		return cli(t, stdin, args...)
	}
	cmd := commandFor(t, binary(t), args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("fanseal %v: %v", args, err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
}

func TestMain(m *testing.M) {
	// Run as age or age-keygen (scriptCommands), this binary is that
	// program; otherwise it runs the tests, then removes its builds.
	testscript.Main(cleanup{m}, scriptCommands)
}

// cleanup runs the tests, then removes the builds they made.
type cleanup struct{ m *testing.M }

func (c cleanup) Run() int {
	code := c.m.Run()
	for _, b := range []*build{built, builtNamed} {
		b.remove()
		for _, tool := range b.tools {
			tool.remove()
		}
	}
	return code
}

// commandFor returns the command that runs args as bin would, through
// program: a tool's name runs the tool built beside bin.
func commandFor(t *testing.T, bin string, args ...string) *exec.Cmd {
	t.Helper()
	bin, args = program(t, bin, args)
	return exec.Command(bin, args...)
}
