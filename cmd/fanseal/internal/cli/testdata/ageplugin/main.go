// Command age-plugin-fstest is an age plugin for fanseal's tests, built
// by them, as age's own command-line tests build theirs: its stanza
// carries the file key in the clear, so it protects nothing. It speaks
// the real plugin protocol through filippo.io/age/plugin.
package main

import (
	"os"

	"filippo.io/age"
	"filippo.io/age/plugin"
)

func main() {
	p, err := plugin.New("fstest")
	if err != nil {
		os.Exit(1)
	}
	p.HandleRecipient(func([]byte) (age.Recipient, error) { return clear{}, nil })
	p.HandleIdentity(func([]byte) (age.Identity, error) { return clear{}, nil })
	p.HandleIdentityAsRecipient(func([]byte) (age.Recipient, error) { return clear{}, nil })
	os.Exit(p.Main())
}

// clear wraps a file key as itself, in a stanza of type fstest.
type clear struct{}

// Wrap returns the file key as the body of one fstest stanza.
func (clear) Wrap(fileKey []byte) ([]*age.Stanza, error) {
	return []*age.Stanza{{Type: "fstest", Body: fileKey}}, nil
}

// Unwrap returns the body of the first fstest stanza.
func (clear) Unwrap(stanzas []*age.Stanza) ([]byte, error) {
	for _, s := range stanzas {
		if s.Type == "fstest" {
			return s.Body, nil
		}
	}
	return nil, age.ErrIncorrectIdentity
}
