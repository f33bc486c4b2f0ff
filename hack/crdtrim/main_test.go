package main

import "testing"

func TestTrimKeepsSchemaAndOwnDescriptions(t *testing.T) {
	in := `spec:
  properties:
    placement:
      description: Placement says where.
      properties:
        clients:
          description: Clients places the clients.
          properties:
            affinity:
              description: |-
                Affinity: ours.
              properties:
                nodeAffinity:
                  description: Describes node affinity scheduling rules
                    for the pod.
                  properties:
                    weight:
                      description: |-
                        Weight associated with matching.

                        In the range 1-100.
                      format: int32
                      type: integer
                  type: object
              type: object
          type: object
        database:
          type: object
        loader:
          type: object
      type: object
    steps:
      properties:
        placement:
          description: Placement is where a step ran.
          properties:
            pods:
              items:
                properties:
                  name:
                    description: Name of the pod.
                    type: string
                type: object
              type: array
          type: object
      type: object
`
	want := `spec:
  properties:
    placement:
      description: Placement says where.
      properties:
        clients:
          description: Clients places the clients.
          properties:
            affinity:
              description: |-
                Affinity: ours.
              properties:
                nodeAffinity:
                  properties:
                    weight:
                      format: int32
                      type: integer
                  type: object
              type: object
          type: object
        database:
          type: object
        loader:
          type: object
      type: object
    steps:
      properties:
        placement:
          description: Placement is where a step ran.
          properties:
            pods:
              items:
                properties:
                  name:
                    description: Name of the pod.
                    type: string
                type: object
              type: array
          type: object
      type: object
`
	if got := trim(in); got != want {
		t.Errorf("trim:\n%s\nwant:\n%s", got, want)
	}
	if got := trim(want); got != want {
		t.Errorf("trim is not idempotent:\n%s", got)
	}
}
