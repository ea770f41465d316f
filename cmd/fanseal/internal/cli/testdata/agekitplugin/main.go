// Command age-plugin-fskit is an age plugin for the conformance kit's
// runner (kit_test.go): its identity AGE-PLUGIN-FSKIT-1… carries the text
// of an age X25519 identity (AGE-SECRET-KEY-1…), which it hands to age's
// own X25519 identity, so that fanseal decrypt opens the kit's type 0x08
// stanzas (age-identity lines) with age's code, through the plugin
// protocol of filippo.io/age/plugin.
package main

import (
	"os"

	"filippo.io/age"
	"filippo.io/age/plugin"
)

func main() {
	p, err := plugin.New("fskit")
	if err != nil {
		os.Exit(1)
	}
	p.HandleIdentity(func(data []byte) (age.Identity, error) { return age.ParseX25519Identity(string(data)) })
	os.Exit(p.Main())
}
