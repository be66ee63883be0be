package queues_test

import (
	"testing"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/queues"
)

func newEmbedded(testing.TB) queues.Backend { return queues.NewEmbedded(zlite.New()) }
