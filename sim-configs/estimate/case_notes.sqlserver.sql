-- EXAMPLE ONLY: a SQL Server heap (no clustered index) written for rowsim's documentation, in the shape
-- SSMS's "Script Table as > CREATE To" prints. Not taken from a server.
SET ANSI_NULLS ON
GO
SET QUOTED_IDENTIFIER ON
GO
CREATE TABLE [dbo].[case_notes](
	[id] [int] NOT NULL,
	[opened] [datetime] NOT NULL,
	[status] [char](8) NOT NULL,
	[summary] [varchar](200) NULL,
	[resolution] [varchar](400) NULL
) ON [PRIMARY]
GO
CREATE NONCLUSTERED INDEX [case_notes_id] ON [dbo].[case_notes]
(
	[id] ASC
) WITH (PAD_INDEX = OFF, STATISTICS_NORECOMPUTE = OFF) ON [PRIMARY]
GO
