{{/* The prefix of every object's name: the release name, like kustomize's namePrefix. */}}
{{- define "tpcc-operator.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "tpcc-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ default "tpcc-operator" .Values.nameOverride }}
app.kubernetes.io/component: manager
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* The manager pods' labels a client NetworkPolicy admits (as --operator-pod-labels, and in
networkpolicy.yaml): the ones kustomize's config/ gives them too. */}}
{{- define "tpcc-operator.policyPodLabels" -}}
app.kubernetes.io/name={{ default "tpcc-operator" .Values.nameOverride }},app.kubernetes.io/component=manager
{{- end -}}

{{- define "tpcc-operator.labels" -}}
{{ include "tpcc-operator.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "tpcc-operator.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (printf "%s-controller-manager" (include "tpcc-operator.fullname" .)) .Values.serviceAccount.name -}}
{{- else -}}
{{- required "serviceAccount.name: required when serviceAccount.create is false" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}
