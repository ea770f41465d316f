package errs

import (
	"errors"
	"fmt"
	"testing"
)

// TestAnonymousLimit: the anonymous trial limit is an error of its own
// that also matches Unsupported, wrapped or not, and no other kind.
func TestAnonymousLimit(t *testing.T) {
	wrapped := fmt.Errorf("%w: 1001 trials", AnonymousLimit)
	for _, err := range []error{AnonymousLimit, wrapped} {
		if !errors.Is(err, AnonymousLimit) || !errors.Is(err, Unsupported) {
			t.Errorf("%v: does not match AnonymousLimit and Unsupported", err)
		}
		for _, other := range []error{NotRecipient, Malformed, Authentication, Truncated, InvalidKey, DuplicateRecipient, MixedSuites, RecipientCount} {
			if errors.Is(err, other) {
				t.Errorf("%v matches %v", err, other)
			}
		}
	}
	if errors.Is(Unsupported, AnonymousLimit) {
		t.Error("Unsupported matches AnonymousLimit")
	}
	if AnonymousLimit.Error() == "" {
		t.Error("no message")
	}
}
