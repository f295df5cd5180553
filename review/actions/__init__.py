"""Every change a person makes, one module per subject: `entries`, `plans`, `cases`,
`answers`. Each action checks what only it knows, then calls `review.decisions`, which
versions the row and appends to the log. Views, commands and the API call these."""
