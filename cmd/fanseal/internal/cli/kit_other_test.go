//go:build !linux

package cli

import "testing"

// cliPassphrase needs a pseudo-terminal, which the kit's runner opens on
// Linux only.
func cliPassphrase(t *testing.T, passphrase string, args ...string) (int, string, string) {
	t.Skip("passphrase vectors need a pseudo-terminal (Linux only)")
	return 0, "", ""
}
