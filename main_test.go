package fanseal

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine (such as a parallel
// sealing worker) outlives them.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
