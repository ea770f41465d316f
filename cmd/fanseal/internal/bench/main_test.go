package bench

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if a goroutine (a Precomputer's
// worker, a loopback connection, a profile server) outlives them.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
