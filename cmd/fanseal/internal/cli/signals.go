package cli

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// errNoUnnamed reports that a directory cannot hold unnamed temporary
// files, so an output uses a named one.
var errNoUnnamed = errors.New("no unnamed temporary files here")

// temporaries holds the staging files with a name (and, for the instant
// it exists, the hidden name an unnamed one is linked to) that are neither
// committed nor removed yet. Its lock orders a commit's rename against a
// signal's clean-up: a signal either removes a temporary file before its
// rename, or finds it already renamed into a complete output.
var temporaries = struct {
	sync.Mutex
	files map[temporary]bool
}{files: map[temporary]bool{}}

// A temporary is a file name in a directory that an output holds open.
type temporary struct {
	d    *dir
	name string
}

// createTemp creates a named staging file in d (mode 0o600), recording it
// for removeOnSignal.
func createTemp(d *dir) (*os.File, string, error) {
	holdTemporaries()
	defer temporaries.Unlock()
	f, name, err := d.createTemp()
	if err == nil {
		temporaries.files[temporary{d, name}] = true
	}
	return f, name, err
}

// withTemporary runs create, which makes the file name in d, recording it
// for removeOnSignal from before it exists.
func withTemporary(d *dir, name string, create func() error) error {
	holdTemporaries()
	defer temporaries.Unlock()
	err := create()
	if err == nil {
		temporaries.files[temporary{d, name}] = true
	}
	return err
}

// commitTemp gives the recorded temporary file tmp in d the name name: by
// rename, replacing what is there, with replace; else by a hard link,
// which fails if anything has that name, then removing the temporary name.
func commitTemp(d *dir, tmp, name string, replace bool) error {
	temporaries.Lock()
	defer temporaries.Unlock()
	var err error
	if replace {
		err = d.rename(tmp, name)
	} else {
		err = d.link(tmp, name)
	}
	if err != nil || !replace {
		d.remove(tmp)
	}
	delete(temporaries.files, temporary{d, tmp})
	return err
}

// removeTemp removes a recorded temporary file.
func removeTemp(d *dir, tmp string) {
	temporaries.Lock()
	defer temporaries.Unlock()
	delete(temporaries.files, temporary{d, tmp})
	d.remove(tmp)
}

// handlerReady is done once removeOnSignal has installed its handler, in
// a process that started it with startSignalHandler (at once in one that
// did not, such as a test that runs commands in-process).
var handlerReady sync.WaitGroup

// startSignalHandler runs removeOnSignal beside the command instead of
// before it: installing a handler starts the runtime's signal goroutine
// and a thread for it, about 0.2 ms that a short command would otherwise
// wait for before its first step. The handler is in place before anything
// is written to an output (Output.Write waits for it), so that a signal
// from then on removes what is pending and says so; and before the output
// changes on disk under a name: a named staging file, the hidden name an
// unnamed one is linked to before its rename, or the copy of a staged
// output into the file a link names (which the temporaries lock keeps
// whole against a signal), each of which takes the lock through
// holdTemporaries, which waits for it too. A signal that comes earlier
// ends the process by its default action, as the handler would after its
// clean-up: nothing has been written yet, no named file exists, and an
// unnamed staging file vanishes with the process.
func startSignalHandler() {
	handlerReady.Add(1)
	go func() {
		defer handlerReady.Done()
		removeOnSignal()
	}()
}

// holdTemporaries waits for the signal handler, if one is being
// installed, and locks temporaries.
func holdTemporaries() {
	handlerReady.Wait()
	temporaries.Lock()
}

// cleanSignals are the signals after which removeOnSignal cleans up: every
// signal that ends the process by default and can be caught.
var cleanSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// removeOnSignal makes the signals in cleanSignals remove every named
// temporary output file before the process ends, so that an interrupted
// command leaves no partial output behind (unnamed ones vanish with the
// process). The process then dies of the same signal, as it would have
// without the handler, so that a shell sees why it ended (and, for
// SIGINT, stops a loop); where a process cannot signal itself it exits
// with status 1.
//
// A signal that was ignored when the process started (SIGHUP under nohup,
// SIGINT for a shell's background job) stays ignored: the command then
// runs to its end as whoever started it asked.
func removeOnSignal() {
	var caught []os.Signal
	for _, sig := range cleanSignals {
		if !signal.Ignored(sig) {
			caught = append(caught, sig)
		}
	}
	if len(caught) == 0 {
		return
	}
	c := make(chan os.Signal, 1)
	signal.Notify(c, caught...)
	go func() {
		sig := <-c
		// The lock is held to the end: no temporary file is created or
		// renamed from now on.
		temporaries.Lock()
		what := ""
		for t := range temporaries.files {
			t.d.remove(t.name)
			what = "; the partial output was removed"
		}
		fmt.Fprintf(os.Stderr, "fanseal: error: interrupted (%v)%s\n", sig, what)
		signal.Reset(sig)
		if p, err := os.FindProcess(os.Getpid()); err == nil && p.Signal(sig) == nil {
			time.Sleep(time.Second) // the signal is on its way
		}
		os.Exit(1)
	}()
}
