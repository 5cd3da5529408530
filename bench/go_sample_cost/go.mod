module github.com/libkpc/libkpc/bench/go_sample_cost

go 1.19

require github.com/libkpc/libkpc/bindings/go v0.0.0

replace github.com/libkpc/libkpc/bindings/go => ../../bindings/go
