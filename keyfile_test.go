package fanseal

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// TestKeyFileLimit: a recipients file as large as the envelope's own
// maximum is read whole, and a file over the limit is an error that names
// the limit, never a silent end of the file.
func TestKeyFileLimit(t *testing.T) {
	ids, _ := identities(t, MLKEM768X25519, 1)
	r := ids[0].Recipient()
	age, err := r.AgeString()
	if err != nil {
		t.Fatal(err)
	}
	// The longest recipient text in each spelling.
	if n := len(r.String()); n != 1975 {
		t.Fatalf("mlkem768x25519 recipient text of %d characters, want 1 975", n)
	}
	if n := len(age); n != 1959 {
		t.Fatalf("age1pq1 recipient text of %d characters, want 1 959", n)
	}

	// MaxRecipients of the longest text, each with a comment line as long
	// as an age identity file's "# public key: age1pq1…", and CRLF line
	// ends: the largest key file an envelope can use.
	entry := "# public key: " + age + "\r\n" + r.String() + "\r\n"
	file := strings.Repeat(entry, MaxRecipients)
	want := MaxRecipients
	if testing.Short() {
		// Just over 16 MiB, with X25519 keys, which parse faster.
		_, xr := identities(t, X25519, 1)
		entry = "# public key: " + age + "\n" + xr[0].String() + "\n"
		want = 16<<20/len(entry) + 1
		file = strings.Repeat(entry, want)
	}
	if len(file) <= 16<<20 {
		t.Fatalf("a key file of %d bytes is not over 16 MiB", len(file))
	}
	got, err := ParseRecipients(strings.NewReader(file))
	if err != nil {
		t.Fatalf("ParseRecipients of %d bytes: %v", len(file), err)
	}
	if len(got) != want {
		t.Fatalf("ParseRecipients of %d bytes read %d recipients, want %d", len(file), len(got), want)
	}

	// One byte over the limit with comments, or with keys: an error naming
	// the limit, for either kind of file.
	padded := func(key string) io.Reader {
		comment := "#" + strings.Repeat(" comment", 4<<10) + "\n"
		head := key + "\n"
		n := (maxKeyFileSize-len(head))/len(comment) + 1
		return io.MultiReader(strings.NewReader(head), strings.NewReader(strings.Repeat(comment, n)))
	}
	for name, parse := range map[string]func() error{
		"recipients file of comments": func() error { _, err := ParseRecipients(padded(r.String())); return err },
		"identity file of comments":   func() error { _, err := ParseIdentities(padded(ids[0].String())); return err },
		"recipients file of keys": func() error {
			_, err := ParseRecipients(strings.NewReader(strings.Repeat(entry, maxKeyFileSize/len(entry)+1)))
			return err
		},
	} {
		err := parse()
		if !errors.Is(err, ErrInvalidKey) || !strings.Contains(err.Error(), fmt.Sprint(maxKeyFileSize)) {
			t.Errorf("%s over %d bytes: %v, want ErrInvalidKey naming the limit", name, maxKeyFileSize, err)
		}
	}
	// Exactly at the limit: read.
	if _, err := ParseIdentities(io.LimitReader(padded(ids[0].String()), maxKeyFileSize)); err != nil {
		t.Errorf("identity file of exactly %d bytes: %v", maxKeyFileSize, err)
	}
}

// TestKeyFileWhitespace: white space at both ends of a line is ignored, so
// a line of white space is blank and "  # x" is a comment
// (docs/FORMAT.md, "Text forms").
func TestKeyFileWhitespace(t *testing.T) {
	ids, rs := identities(t, X25519, 2)
	file := "  # indented comment\n \t \n\t" + ids[0].String() + "  \r\n  " + ids[1].String() + "\n"
	got, err := ParseIdentities(strings.NewReader(file))
	if err != nil || len(got) != 2 || got[0].Recipient().String() != rs[0].String() || got[1].Recipient().String() != rs[1].String() {
		t.Fatalf("ParseIdentities = %v, %v", got, err)
	}
	if _, err := ParseRecipients(strings.NewReader(" # " + rs[0].String() + "\n")); !errors.Is(err, ErrInvalidKey) {
		t.Fatalf("a file of one indented comment: %v, want no recipient found", err)
	}
}

// KeyLines is the one scanner of key files, the command line's too: it
// yields key lines with the comments right above them, at most 4 of them
// cut to 256 bytes.
func TestKeyLines(t *testing.T) {
	file := "# alice\n  # laptop  \nkey1\n\n# " + strings.Repeat("x", 300) + "\n#a\n#b\n#c\n#d\n\tkey2 \n# dangling\n"
	var got []KeyLine
	for l, err := range KeyLines(strings.NewReader(file)) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, l)
	}
	if len(got) != 2 || got[0].Number != 3 || got[0].Text != "key1" || strings.Join(got[0].Comments, "|") != "alice|laptop" {
		t.Fatalf("first line: %+v", got)
	}
	if got[1].Number != 10 || got[1].Text != "key2" || strings.Join(got[1].Comments, "|") != "a|b|c|d" {
		t.Fatalf("second line: %+v", got[1])
	}
	for _, err := range KeyLines(strings.NewReader(strings.Repeat("x", 70<<10))) {
		if !errors.Is(err, ErrKeyLineTooLong) || !errors.Is(err, ErrInvalidKey) {
			t.Fatalf("a 70 KiB line: %v", err)
		}
	}
}
