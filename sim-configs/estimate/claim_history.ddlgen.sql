-- EXAMPLE ONLY: written for rowsim's documentation in the shape of what SAP ASE's ddlgen prints for
-- one table (ddlgen -U… -S… -TU -Nclaim_history -Dclaims). Not captured from a server: a claims
-- system's notes table, datarows-locked on 2K pages with exp_row_size 150.

-----------------------------------------------------------------------------
-- DDL for UserTable 'claims.dbo.claim_history'
-----------------------------------------------------------------------------

print '<<<<< CREATING UserTable - "claims.dbo.claim_history" >>>>>'
go

use claims
go

setuser 'dbo'
go

create table claim_history (
	note_id                         int                              not null,
	claim_id                        int                              not null,
	created                         datetime                         not null,
	updated                         datetime                         not null,
	status                          char(8)                          not null,
	subject                         varchar(80)                      not null,
	agent                           varchar(30)                          null,
	body                            varchar(1000)                        null,
	resolution                      varchar(145)                         null 
)
lock datarows
with exp_row_size = 150, identity_gap = 0
on 'default'
partition by range (created)
    (claim_history_p2024 values <= ('Dec 31 2024 11:59:59PM') on 'default',
     claim_history_p2025 values <= ('Dec 31 2025 11:59:59PM') on 'default',
     claim_history_p2026 values <= (MAX) on 'default')
go

Grant Select on dbo.claim_history to public
go

setuser
go

-----------------------------------------------------------------------------
-- DDL for Index 'claim_history_pk'
-----------------------------------------------------------------------------

print '<<<<< CREATING Index - "claim_history_pk" >>>>>'
go

create unique nonclustered index claim_history_pk 
on claims.dbo.claim_history(note_id)
on 'default'
go
