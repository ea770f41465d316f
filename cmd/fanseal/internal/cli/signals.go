package cli

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
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

// handler is removeOnSignal's installation: wanted in a process that
// runs a command (Main, a Tool), started at most once, and ready once the
// handler is in place. A test that runs commands in-process never wants
// it, and never waits.
var handler struct {
	wanted atomic.Bool
	once   sync.Once
	ready  sync.WaitGroup
}

// wantSignalHandler makes this process install removeOnSignal when an
// output first needs it (startSignalHandler).
func wantSignalHandler() { handler.wanted.Store(true) }

// startSignalHandler runs removeOnSignal beside the command instead of
// before it, once, and only once an output needs it: one that stages what
// it writes (a named staging file, an unnamed one, or the copy of a
// staged output into the file a link names). Installing a handler starts
// the runtime's signal goroutine and a locked thread, about 0.25 ms of a
// short command's wall time (5 % of a 1 KiB decrypt), which an output
// written in place (standard output, a pipe, a device, a FIFO) has no use
// for: nothing of it is pending, and a signal ends the process by its
// default action, as it ends age. A staged output starts the handler as it
// is created; it is in place before anything is written to it
// (Output.Write waits for it), so that a signal from then on removes what
// is pending and says so; and before the output changes on disk under a
// name (a named staging file, the hidden name an unnamed one is linked to
// before its rename, or the copy into a link's file, which the
// temporaries lock keeps whole against a signal), each of which takes the
// lock through holdTemporaries, which waits for it too. A signal that
// comes earlier ends the process by its default action, as the handler
// would after its clean-up: nothing has been written yet, no named file
// exists, and an unnamed staging file vanishes with the process.
func startSignalHandler() {
	if !handler.wanted.Load() {
		return
	}
	handler.once.Do(func() {
		handler.ready.Add(1)
		go func() {
			defer handler.ready.Done()
			removeOnSignal()
		}()
	})
}

// waitSignalHandler starts the signal handler, if it is wanted and not
// started yet, and waits until it is in place.
func waitSignalHandler() {
	startSignalHandler()
	handler.ready.Wait()
}

// holdTemporaries waits for the signal handler, if one is wanted, and
// locks temporaries.
func holdTemporaries() {
	waitSignalHandler()
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
