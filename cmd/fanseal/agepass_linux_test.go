package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"filippo.io/age"
)

// TestPassphraseOnTerminal: decrypt asks the passphrase of an age file
// on its controlling terminal (a pseudo-terminal here), without echoing
// it, and opens the file with what was typed there.
func TestPassphraseOnTerminal(t *testing.T) {
	bin := binary(t)
	r, err := age.NewScryptRecipient("typed on the terminal")
	if err != nil {
		t.Fatal(err)
	}
	r.SetWorkFactor(10)
	dir := t.TempDir()
	file := writeFile(t, dir, "pass.age", ageSeal(t, []byte("behind a passphrase"), false, r))
	for _, typed := range []string{"typed on the terminal", "a wrong guess"} {
		out := filepath.Join(dir, "out")
		os.Remove(out)
		master, tty := openPTYPair(t)
		cmd := exec.Command(bin, "decrypt", "-o", out, file)
		var stderr bytes.Buffer
		cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, &stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
		var mu sync.Mutex
		var screen strings.Builder
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
		deadline := time.Now().Add(10 * time.Second)
		for {
			mu.Lock()
			asked := strings.Contains(screen.String(), "Enter passphrase:")
			mu.Unlock()
			if asked {
				break
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("no prompt on the terminal; stderr %q", stderr.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
		master.Write([]byte(typed + "\r"))
		err := cmd.Wait()
		time.Sleep(50 * time.Millisecond)
		mu.Lock()
		shown := screen.String()
		mu.Unlock()
		if strings.Contains(shown, typed) {
			t.Fatalf("the passphrase was echoed: %q", shown)
		}
		got, readErr := os.ReadFile(out)
		if typed == "a wrong guess" {
			if err == nil || readErr == nil || !strings.Contains(stderr.String(), "incorrect passphrase") {
				t.Fatalf("wrong passphrase: %v, output %v, stderr %q", err, readErr == nil, stderr.String())
			}
			continue
		}
		if err != nil || string(got) != "behind a passphrase" {
			t.Fatalf("%v: %q, stderr %q", err, got, stderr.String())
		}
	}
}
