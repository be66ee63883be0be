package shardlock

import (
	"testing"

	"github.com/zlite/zlite/internal/testmain"
)

func TestMain(m *testing.M) { testmain.Run(m) }
