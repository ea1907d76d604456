CREATE TABLE [dbo].[notes] (
	[id] [int] NOT NULL,
	[body] [varchar](9000) NULL
)
GO
