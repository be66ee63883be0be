package queues_test

import (
	"testing"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/queues"
	"github.com/zlite/zlite/queues/embedded"
)

func newEmbedded(testing.TB) queues.Backend { return embedded.New(zlite.New()) }
