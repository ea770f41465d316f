package sim

import (
	"context"
	"errors"

	"github.com/fanseal/fanseal"
)

// SynchronizerOptions configure the synchronizer workload.
type SynchronizerOptions struct {
	Participants, Views, Interval int
	Suite                         fanseal.Suite
	Strategy                      fanseal.Strategy
}

func Synchronizer(o SynchronizerOptions) Workload { return &syncWorkload{o} }

type syncWorkload struct{ o SynchronizerOptions }

func (*syncWorkload) Name() string     { return "synchronizer" }
func (*syncWorkload) Describe() string { return "" }
func (*syncWorkload) rules() []Rule    { return nil }
func (*syncWorkload) newWorld(context.Context, Side, *Config) (world, error) {
	return nil, errors.New("not yet")
}
