package fanseal

import (
	"bytes"
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// pqTexts returns the text forms of n new post-quantum recipients, never
// returned before: not identities' shared keys, since the flood test needs
// keys other than those it made come back.
func pqTexts(t testing.TB, n int) []string {
	texts := make([]string, n)
	for i := range texts {
		id, err := GenerateIdentity(MLKEM768X25519)
		if err != nil {
			t.Fatal(err)
		}
		texts[i] = id.Recipient().String()
	}
	return texts
}

// TestSessionCacheParseRecipient: a post-quantum recipient parsed again
// through a SessionCache is the recipient ParseRecipient makes, and the
// same value each time, by its text, by its bytes and by age's text
// (three entries); a
// classical one, an age one and a key that fails are parsed each time;
// Purge forgets them.
func TestSessionCacheParseRecipient(t *testing.T) {
	c := NewSessionCache(0, 0)
	text := pqTexts(t, 1)[0]
	first, err := c.ParseRecipient(text)
	if err != nil {
		t.Fatal(err)
	}
	want, err := ParseRecipient(text)
	if err != nil {
		t.Fatal(err)
	}
	if first.String() != want.String() || !bytes.Equal(first.Bytes(), want.Bytes()) || first.KeyID() != want.KeyID() || first.Suite() != MLKEM768X25519 {
		t.Fatalf("cached parse %v, want %v", first, want)
	}
	for range 3 {
		if again, err := c.ParseRecipient(text); err != nil || again != first {
			t.Fatalf("second parse: %p, %v; want the first recipient %p", again, err, first)
		}
	}
	byBytes, err := c.NewRecipient(MLKEM768X25519, want.Bytes())
	if err != nil || byBytes == first || !bytes.Equal(byBytes.Bytes(), want.Bytes()) {
		t.Fatalf("by bytes: %v, %v", byBytes, err)
	}
	if again, _ := c.NewRecipient(MLKEM768X25519, want.Bytes()); again != byBytes {
		t.Fatal("by bytes: a second NewRecipient parsed again")
	}
	ageText, _ := want.AgeString()
	a, err := c.ParseRecipient(ageText)
	if b, _ := c.ParseRecipient(ageText); err != nil || a != b || a.String() != want.String() {
		t.Fatalf("%s: %v, %v (same value: %v)", ageText, a, err, a == b)
	}
	if n := c.recipients.len(); n != 3 {
		t.Fatalf("%d recipients kept, want 3: fanseal's text, the bytes, age's text", n)
	}

	_, xr := identities(t, X25519, 1)
	x := xr[0]
	age, _ := x.AgeString()
	for _, s := range []string{x.String(), age} {
		a, err := c.ParseRecipient(s)
		b, _ := c.ParseRecipient(s)
		if err != nil || a == b || a.String() != x.String() {
			t.Errorf("%s: %v, %v (same value: %v)", s, a, err, a == b)
		}
	}
	if _, err := c.NewRecipient(MLKEM768X25519, want.Bytes()[:100]); !errors.Is(err, ErrInvalidKey) {
		t.Errorf("a short key: %v", err)
	}
	last := "q" // a last character other than the text's own
	if strings.HasSuffix(text, last) {
		last = "r"
	}
	bad := text[:len(text)-1] + last
	for range 2 {
		if _, err := c.ParseRecipient(bad); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("a corrupted text: %v", err)
		}
	}
	if _, err := c.ParseRecipient(strings.ToUpper(ageText)); !errors.Is(err, ErrInvalidKey) {
		t.Errorf("age's text in upper case: %v", err)
	}
	if n := c.recipients.len(); n != 3 {
		t.Fatalf("%d recipients kept after classical keys and failures, want 3", n)
	}
	c.Purge()
	if n := c.recipients.len(); n != 0 {
		t.Fatalf("%d recipients kept after Purge", n)
	}
	if again, _ := c.ParseRecipient(text); again == first {
		t.Fatal("a recipient served after Purge")
	}
}

// TestSessionCacheRecipientsFlood: recipients that came back stay while
// twice as many keys as the cache holds in all are each parsed once.
func TestSessionCacheRecipientsFlood(t *testing.T) {
	c := NewSessionCache(0, 0)
	regulars := pqTexts(t, cachedRecipients)
	kept := make([]*Recipient, len(regulars))
	for i, s := range regulars {
		c.ParseRecipient(s)
		kept[i], _ = c.ParseRecipient(s)
	}
	for _, s := range pqTexts(t, 2*(cachedRecipients+newRecipients)) {
		if _, err := c.ParseRecipient(s); err != nil {
			t.Fatal(err)
		}
	}
	if n := c.recipients.len(); n != cachedRecipients+newRecipients {
		t.Errorf("%d recipients kept, want %d", n, cachedRecipients+newRecipients)
	}
	for i, s := range regulars {
		if r, _ := c.ParseRecipient(s); r != kept[i] {
			t.Fatalf("recipient %d, which came back, was evicted by keys parsed once", i)
		}
	}
}

// TestSessionCacheRecipientsMemory: a full cache of post-quantum
// recipients holds under 16 KiB a recipient, its text included, as
// SessionCache documents, though each text it was given was cut from a
// 32 KiB request that the caller then dropped.
func TestSessionCacheRecipientsMemory(t *testing.T) {
	texts := pqTexts(t, cachedRecipients+newRecipients)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	c := NewSessionCache(0, 0)
	for i, text := range texts {
		request := strings.Repeat("x", 32<<10) + text
		s := request[len(request)-len(text):]
		c.ParseRecipient(s)
		if i < cachedRecipients {
			c.ParseRecipient(s)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if n := c.recipients.len(); n != len(texts) {
		t.Fatalf("%d recipients kept, want %d", n, len(texts))
	}
	per := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / int64(len(texts))
	t.Logf("%d bytes a recipient", per)
	if per >= 16<<10 {
		t.Errorf("%d bytes a recipient, documented under 16 KiB", per)
	}
	runtime.KeepAlive(c)
}

// TestSessionCacheRecipientsConcurrent: many goroutines parsing the same
// keys through one cache, under -race, all get one recipient for each
// key, and the cache keeps each key once.
func TestSessionCacheRecipientsConcurrent(t *testing.T) {
	c := NewSessionCache(0, 0)
	texts := pqTexts(t, 8)
	var seen sync.Map // text → *Recipient
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := range 64 {
				s := texts[(g+i)%len(texts)]
				r, err := c.ParseRecipient(s)
				if err != nil || r.String() != s {
					t.Errorf("%v, %v", r, err)
					return
				}
				if first, _ := seen.LoadOrStore(s, r); first != r {
					t.Errorf("two recipients for one text: %p and %p", first, r)
					return
				}
			}
		})
	}
	wg.Wait()
	if n := c.recipients.len(); n != len(texts) {
		t.Errorf("%d recipients kept, want %d", n, len(texts))
	}
}
