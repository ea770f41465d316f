package cli

import (
	"errors"
	"io"
	"strings"
	"testing"

	"filippo.io/age/armor"
	fsarmor "github.com/fanseal/fanseal/armor"
)

// errPastArmor is what a terminal "returns" past the armor's last line: a
// read there would wait for the user, who is about to type a passphrase.
var errPastArmor = errors.New("read past the armor's last line")

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errPastArmor }

// TestBufferTerminalInput: an armored input typed or pasted on a terminal
// is read up to its armor's last line (age's or fanseal's, with surrounding
// white space) and no further, so that the passphrase typed next is not
// taken for input; without that line, to the end of input; and more than
// maxTerminalInput bytes is an error, not a silent stop.
func TestBufferTerminalInput(t *testing.T) {
	for _, text := range []string{
		armor.Header + "\nYWdlLWVuY3J5cHRpb24ub3JnL3YxCg==\n" + armor.Footer + "\n",
		fsarmor.Header + "\nRkFOU0VBTAE=\n  " + fsarmor.Footer + " \r\n",
	} {
		r, err := bufferTerminalInput(io.MultiReader(strings.NewReader(text), failingReader{}))
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if got, _ := io.ReadAll(r); string(got) != text {
			t.Fatalf("buffered %q, want %q", got, text)
		}
	}
	// No last line: everything up to the end.
	partial := armor.Header + "\nYWdl\nno newline at the end"
	r, err := bufferTerminalInput(strings.NewReader(partial))
	if got, _ := io.ReadAll(r); err != nil || string(got) != partial {
		t.Fatalf("without a last line: %q, %v", got, err)
	}
	// A read error is reported.
	if _, err := bufferTerminalInput(io.MultiReader(strings.NewReader("x\n"), failingReader{})); !errors.Is(err, errPastArmor) {
		t.Fatalf("a failing terminal: %v", err)
	}
	// Too much, in lines or in one line: refused.
	for _, huge := range []string{strings.Repeat("line\n", maxTerminalInput/5+1), strings.Repeat("x", maxTerminalInput+1)} {
		if _, err := bufferTerminalInput(strings.NewReader(huge)); err == nil || !strings.Contains(err.Error(), "more than") {
			t.Fatalf("%d bytes: %v", len(huge), err)
		}
	}
}
